// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The getting-started article's first example (the README's until issue 67), as written,
/// against the chains Let's Encrypt serves in 2026, made with their real names and shapes by the
/// test kit.
@Suite("README example")
struct ReadmeExampleTests {
  /// The README's configuration (`Snippets/JudgeAChain.swift`); `theConfigurationIsTheReadmes`
  /// checks that the two are the same code.
  static func readmeManager() throws -> CNPinningManager {
    // README configuration begins
    let host = "api.example.com"
    let manager = try CNPinningManager(configuration: [
      host: CNConfiguration(
        includesSubdomains: false,
        [
          CNChain([
            CNChainLink(.prefixWithNumber, "ISRG Root X"),  // ISRG Root X1
            CNChainLink(.exact, "Root YR", mayBeAnchor: true),  // cross-signed by X1, or a root itself
            CNChainLink(.prefixWithNumber, "YR"),  // YR1, YR2, YR3
            CNChainLink(.subjectAltName, host),  // the leaf, valid for the host
          ]),
          CNChain([
            CNChainLink(.prefixWithNumber, "ISRG Root X"),  // ISRG Root X1
            CNChainLink(.prefixWithNumber, "ISRG Root X", mayBeAnchor: true),  // ISRG Root X2, cross-signed by X1
            CNChainLink(.exact, "Root YE", mayBeAnchor: true),  // cross-signed by X2, or a root itself
            CNChainLink(.prefixWithNumber, "YE"),  // YE1, YE2, YE3
            CNChainLink(.subjectAltName, host),
          ]),
        ])
    ])
    // README configuration ends
    return manager
  }

  /// The README's `switch`, returning what it prints.
  static func outcome(_ chain: [CNCertificate]) throws -> String {
    switch try readmeManager().evaluate(host: "api.example.com", chain: chain) {
    case .accepted(let match): return "accepted: the pins of \(match.domain) matched"
    case .notPinned: return "not pinned: normal TLS validation decides"
    case .rejected(let failure), .reportOnly(let failure): return "\(failure)"
    }
  }

  /// Code without comments or whitespace, to compare two spellings of the same code.
  static func bare(_ code: some StringProtocol) -> String {
    code.split(separator: "\n").map { line in line.split(separator: "//", maxSplits: 1).first ?? "" }
      .joined().filter { !$0.isWhitespace }
  }

  @Test func theConfigurationIsTheReadmes() throws {
    let snippet = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Snippets/JudgeAChain.swift"), encoding: .utf8)
    let own = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let readme = try #require(snippet.range(of: "let host =").map { snippet[$0.lowerBound...] })
    let readmeConfiguration = try #require(readme.range(of: "\n// The verified chain").map { readme[..<$0.lowerBound] })
    let begins = try #require(own.range(of: "// README configuration begins"))
    let ends = try #require(own.range(of: "// README configuration ends"))
    #expect(Self.bare(own[begins.upperBound..<ends.lowerBound]) == Self.bare(readmeConfiguration))
  }

  /// Every chain Let's Encrypt serves today, as a device verifies it with each trust store of
  /// 2026 (ISRG Root X1 only, X1 and X2, or the Generation Y roots too), for a leaf of every
  /// profile (with a Common Name, or none), is accepted.
  @Test(
    arguments: [LetsEncryptPKI.Issuance.generationYRSA, .generationYECDSA], LetsEncryptPKI.Store.allCases)
  func todaysChainsAreAccepted(_ issuance: LetsEncryptPKI.Issuance, _ store: LetsEncryptPKI.Store) throws {
    let pki = try LetsEncryptPKI()
    for profile in LetsEncryptPKI.LeafProfile.allCases {
      let (leaf, sent) = try pki.server("api.example.com", issuance, profile: profile)
      let chain: [CNCertificate]
      switch (issuance, store) {
      case (.generationYRSA, .generationY): chain = [leaf.certificate, pki.yr2.certificate, pki.rootYR.certificate]
      case (.generationYRSA, _): chain = [leaf.certificate] + sent + [pki.rootX1.certificate]
      case (_, .generationY): chain = [leaf.certificate, pki.ye1.certificate, pki.rootYE.certificate]
      case (_, .generationX): chain = [leaf.certificate] + sent.dropLast() + [pki.rootX2.certificate]
      case (_, .rootX1Only): chain = [leaf.certificate] + sent + [pki.rootX1.certificate]
      }
      #expect(try Self.outcome(chain) == "accepted: the pins of api.example.com matched", "\(profile)")
    }
  }

  /// The README's chainSet covers every shape of the catalogued hierarchies it names (`cnpin
  /// lint --rehearse`), and has no lint warning.
  @Test func theReadmesChainsPassTheRehearsal() throws {
    let manager = try Self.readmeManager()
    let document = try CNPinningDocument(configuration: manager.pinnedDomains)
    let findings = CNConfigurationLinter.lint(document, rehearse: true)
    #expect(findings.filter { $0.severity != .note }.isEmpty, "\(findings)")
    #expect(CACatalogue.compiledIn.families(namedBy: manager.pinnedDomains["api.example.com"]!.chains).count == 2)
  }

  /// What the README shows a rejection to read like: a chain through another CA.
  @Test func aChainThroughAnotherCAIsRefusedSayingWhy() throws {
    let root = try TestIdentity.root("DigiCert Global Root G2")
    let chain = try root.issueIntermediate("DigiCert Global G2 TLS RSA SHA256 2020 CA1").issueLeaf(
      "api.example.com", dnsNames: ["api.example.com"]
    ).chain
    #expect(
      try Self.outcome(chain)
        == #"Pin mismatch for api.example.com: the verified chain ["DigiCert Global Root G2" → "DigiCert Global G2 TLS RSA SHA256 2020 CA1" → "api.example.com"] (root → leaf) matches none of the 2 pinned chains; chain 0 [prefixWithNumber "ISRG Root X" → exact "Root YR" (may be the anchor) → prefixWithNumber "YR" → subjectAltName "api.example.com"], as its shape of 3 from "Root YR": certificate 1 (root → leaf) has CN "DigiCert Global G2 TLS RSA SHA256 2020 CA1", which does not match prefixWithNumber "YR"; chain 1 [prefixWithNumber "ISRG Root X" → prefixWithNumber "ISRG Root X" (may be the anchor) → exact "Root YE" (may be the anchor) → prefixWithNumber "YE" → subjectAltName "api.example.com"], as its shape of 3 from "Root YE": certificate 1 (root → leaf) has CN "DigiCert Global G2 TLS RSA SHA256 2020 CA1", which does not match prefixWithNumber "YE""#
    )
  }
}
#endif
