import CNPinning
import FuzzDriver

// Host-name normalisation and resolution: a name that configures loads, resolves to itself in
// any ASCII case and (unless it is an IPv6 literal) with one trailing dot, and a lookup never
// crashes.
let configuration = try! CNConfiguration([try! CNChain([try! CNChainLink(.exact, "Root")])])
let parent = try! CNPinningManager(configuration: [
  "example.com": try! CNConfiguration(includesSubdomains: true, [try! CNChain([try! CNChainLink(.exact, "Root")])])
])

runFuzzing { bytes in
  let host = String(decoding: bytes, as: UTF8.self)
  _ = parent.configuration(for: host)
  _ = parent.evaluate(host: host, chain: [])
  guard let manager = try? CNPinningManager(configuration: [host: configuration]) else { return }
  var variants = [host, host.uppercased(), host.lowercased()]
  if !host.contains(":") { variants.append(host.hasSuffix(".") ? String(host.dropLast()) : host + ".") }
  for variant in variants where variant.allSatisfy(\.isASCII) {
    guard manager.configuration(for: variant) != nil else {
      fatalError("\"\(host)\" is configured but \"\(variant)\" does not resolve to it")
    }
  }
}
