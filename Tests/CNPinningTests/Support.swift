import CNPinning
import Foundation
import Testing

extension Tag {
  /// Tests of concurrency: parallel requests or evaluations, races, cancellation, shared
  /// connections and sessions. `make tsan` runs these under ThreadSanitizer.
  @Tag static var concurrency: Self
}

/// Wraps plist XML elements in a property-list document.
func plistDocument(_ body: String) -> Data {
  Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>
    """.utf8)
}

/// The problems reported for a document, or an empty array when it loads.
func problems(_ data: Data, source: String? = nil) -> [CNConfigurationError.Problem] {
  do {
    _ = try CNPinningManager(document: CNPinningDocument(data: data, source: source))
    return []
  } catch let error as CNConfigurationError {
    return error.problems
  } catch {
    Issue.record("unexpected error type: \(error)")
    return []
  }
}

/// The problems reported for a JSON document given as text.
func problems(json: String) -> [CNConfigurationError.Problem] { problems(Data(json.utf8)) }

/// A JSON configuration pinning one host with the given host dictionary body.
func jsonConfiguration(host: String = "api.example.com", _ hostBody: String) -> String {
  #"{"PinnedDomains": {"\#(host)": \#(hostBody)}}"#
}

extension CNConfigurationError.Problem {
  init(_ path: String, _ problem: CNConfigurationError.Problem) { self = problem.at(path) }
  init(path: String, error problem: CNConfigurationError.Problem) { self = problem.at(path) }
}

/// A chain of links written root → leaf from (type, value) pairs.
func chain(_ links: (CNChainLink.LinkType, String)...) throws -> CNChain {
  try CNChain(links.map { try CNChainLink($0.0, $0.1) })
}

extension CNPinningReporter {
  /// Evaluates with `manager` and reports what needs reporting, as a transport does after its
  /// verdict.
  func evaluateAndReport(host: String, port: Int, chain: [CNCertificate], pins manager: CNPinningManager)
    -> (result: CNPinningResult, report: CNPinningFailureReport?)
  {
    let result = manager.evaluate(host: host, chain: chain)
    return (result, report(result, host: host, port: port, chain: chain, pins: manager))
  }
}
