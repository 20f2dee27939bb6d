import CNPinning
import Foundation

/// Host-name normalisation and resolution: a name that configures loads, resolves to itself in
/// any ASCII case and (unless it is an IPv6 literal) with one trailing dot, and a lookup never
/// crashes.
private let configuration = try! CNConfiguration([try! CNChain([try! CNChainLink(.exact, "Root")])])
private let parent = try! CNPinningManager(configuration: [
  "example.com": try! CNConfiguration(includesSubdomains: true, [try! CNChain([try! CNChainLink(.exact, "Root")])])
])


func fuzzHostName(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let host = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  _ = parent.configuration(for: host)
  _ = parent.evaluate(host: host, chain: [])
  guard let manager = try? CNPinningManager(configuration: [host: configuration]) else { return 0 }
  var variants = [host, host.uppercased(), host.lowercased()]
  if !host.contains(":") { variants.append(host.hasSuffix(".") ? String(host.dropLast()) : host + ".") }
  for variant in variants where variant.allSatisfy(\.isASCII) {
    guard manager.configuration(for: variant) != nil else {
      fatalError("\"\(host)\" is configured but \"\(variant)\" does not resolve to it")
    }
  }
  return 0
}
