// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Testing

/// The README's first example, as written, against chains made by the test PKI.
@Suite("README example")
struct ReadmeExampleTests {
  static func outcome(verifiedChainPEM: String) throws -> String {
    let manager = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration(
        includesSubdomains: false,
        [
          CNChain([  // written root → leaf
            CNChainLink(.prefixWithNumber, "ISRG Root X"),  // ISRG Root X1, X2, …
            CNChainLink(.prefixWithNumber, "R"),  // R10, R11, …
            CNChainLink(.exact, "api.example.com"),
          ])
        ])
    ])

    // The verified chain from your TLS stack: leaf first, ending with the trust anchor.
    let chain = try CNCertificate.certificates(pemEncoded: verifiedChainPEM)

    switch manager.evaluate(host: "api.example.com", chain: chain) {
    case .accepted(let match):
      return "accepted: the pins of \(match.domain) matched"
    case .notPinned:
      return "not pinned: normal TLS validation decides"
    case .rejected(let failure), .reportOnly(let failure):
      return "\(failure)"
    }
  }

  @Test func acceptedAndRejected() throws {
    let root = try TestIdentity.root("ISRG Root X1")
    let good = try root.issueIntermediate("R11").issueLeaf("api.example.com").chain
    let bad = try root.issueIntermediate("E5").issueLeaf("api.example.com").chain
    #expect(
      try Self.outcome(verifiedChainPEM: good.map(\.pemEncoded).joined()) == "accepted: the pins of api.example.com matched")
    #expect(
      try Self.outcome(verifiedChainPEM: bad.map(\.pemEncoded).joined())
        == #"Pin mismatch for api.example.com: the verified chain ["ISRG Root X1" → "E5" → "api.example.com"] (root → leaf) matches none of the 1 pinned chain; chain 0 [prefixWithNumber "ISRG Root X" → prefixWithNumber "R" → exact "api.example.com"]: certificate 1 (root → leaf) has CN "E5", which does not match prefixWithNumber "R""#
    )
  }
}
#endif
