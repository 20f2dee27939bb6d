// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The README's first example, as written, against the chains Let's Encrypt serves in 2026, made
/// with their real names and shapes by the test kit.
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
            CNChainLink(.prefixWithNumber, "ISRG Root X"),  // ISRG Root X1 (RSA), X2 (ECDSA)
            CNChainLink(.exact, "Root YR"),  // the Generation Y RSA root, cross-signed
            CNChainLink(.prefixWithNumber, "YR"),  // YR1, YR2, YR3
            CNChainLink(.exact, host),
          ]),
          CNChain([CNChainLink(.exact, "Root YR"), CNChainLink(.prefixWithNumber, "YR"), CNChainLink(.exact, host)]),
          CNChain([
            CNChainLink(.prefixWithNumber, "ISRG Root X"),
            CNChainLink(.exact, "Root YE"),  // the Generation Y ECDSA root, cross-signed
            CNChainLink(.prefixWithNumber, "YE"),  // YE1, YE2, YE3
            CNChainLink(.exact, host),
          ]),
          CNChain([CNChainLink(.exact, "Root YE"), CNChainLink(.prefixWithNumber, "YE"), CNChainLink(.exact, host)]),
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

  /// Every chain Let's Encrypt serves today, as a device verifies it with the trust stores of
  /// 2026 (the Generation X roots only, or the Generation Y roots too), is accepted.
  @Test(arguments: [LetsEncryptPKI.Issuance.generationYRSA, .generationYECDSA], [false, true])
  func todaysChainsAreAccepted(_ issuance: LetsEncryptPKI.Issuance, _ storeHasGenerationY: Bool) throws {
    let pki = try LetsEncryptPKI()
    let (leaf, _) = try pki.server("api.example.com", issuance)
    var chain = leaf.chain  // leaf, YR2 or YE1, and the self-signed Generation Y root
    if !storeHasGenerationY {
      // Through the cross-sign: the Generation Y root as signed by ISRG Root X1 or X2, then it.
      let cross = issuance == .generationYRSA ? pki.rootYRCrossSigned : pki.rootYECrossSigned
      chain = Array(chain.dropLast()) + [cross.certificate, cross.issuer!.certificate]
    }
    #expect(chain.count == (storeHasGenerationY ? 3 : 4))
    #expect(try Self.outcome(chain) == "accepted: the pins of api.example.com matched")
  }

  /// What the README shows a rejection to read like: a chain through another CA.
  @Test func aChainThroughAnotherCAIsRefusedSayingWhy() throws {
    let root = try TestIdentity.root("DigiCert Global Root G2")
    let chain = try root.issueIntermediate("DigiCert Global G2 TLS RSA SHA256 2020 CA1").issueLeaf("api.example.com").chain
    #expect(
      try Self.outcome(chain)
        == #"Pin mismatch for api.example.com: the verified chain ["DigiCert Global Root G2" → "DigiCert Global G2 TLS RSA SHA256 2020 CA1" → "api.example.com"] (root → leaf) matches none of the 4 pinned chains; chain 0 [prefixWithNumber "ISRG Root X" → exact "Root YR" → prefixWithNumber "YR" → exact "api.example.com"]: expected 4 certificates, the verified chain has 3; chain 1 [exact "Root YR" → prefixWithNumber "YR" → exact "api.example.com"]: certificate 1 (root → leaf) has CN "DigiCert Global G2 TLS RSA SHA256 2020 CA1", which does not match prefixWithNumber "YR"; chain 2 [prefixWithNumber "ISRG Root X" → exact "Root YE" → prefixWithNumber "YE" → exact "api.example.com"]: expected 4 certificates, the verified chain has 3; chain 3 [exact "Root YE" → prefixWithNumber "YE" → exact "api.example.com"]: certificate 1 (root → leaf) has CN "DigiCert Global G2 TLS RSA SHA256 2020 CA1", which does not match prefixWithNumber "YE""#
    )
  }
}
#endif
