import CNPinning
import Foundation

/// Loading a 10,000-host plist against `PropertyListSerialization` alone on the same bytes.
enum PlistLoadBenchmark {
  static func run() throws -> Outcome {
    var hosts: [String: Any] = [:]
    for index in 0..<10_000 {
      let chain: [[String: String]] = [
        ["type": "prefixWithNumber", "value": "ISRG Root X"],
        ["type": "prefixWithNumber", "value": "R"],
        ["type": "exact", "value": "host\(index).example.com"],
      ]
      let backup: [[String: String]] = [
        ["type": "exact", "value": "DigiCert Global Root G2"],
        ["type": "prefix", "value": "DigiCert Global G2 TLS RSA SHA256 2020 CA"],
        ["type": "suffix", "value": ".example.com"],
      ]
      hosts["host\(index).example.com"] = ["includesSubdomains": index % 2 == 0, "chainSet": [chain, backup]]
    }
    let document: [String: Any] = ["CNPinningManager": ["PinnedDomains": hosts]]
    let data = try PropertyListSerialization.data(fromPropertyList: document, format: .xml, options: 0)

    let (load, serialization) = Measure.sideBySide(
      rounds: 7, iterations: 1,
      { blackHole &+= (try! CNPinningManager(document: CNPinningDocument(data: data))).pinnedDomains.count },
      { blackHole &+= ((try! PropertyListSerialization.propertyList(from: data, format: nil)) as! [String: Any]).count })
    return Outcome(
      name: "load a 10,000-host plist vs PropertyListSerialization alone (\(data.count / 1024) KiB)",
      detail: "\(Measure.format(load)) vs \(Measure.format(serialization))", ratio: load / serialization, target: 3.0)
  }
}
