// Uses the OpenSSL test kit, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@testable import CNPinningSession
@testable import CNPinningCurl

/// The Web-PKI profile, by default for the system's trust store only: a chain as public CAs
/// issue them passes; a leaf whose CN is not among its SAN entries is refused in strict mode
/// and kept working with custom anchors (a private PKI's CN may be a description).
@Suite("Certificate profile")
struct CertificateProfileTests {
  static func evaluator(_ root: TestIdentity, _ profile: CNCertificateProfile) throws -> CNTrustEvaluator {
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = .customAnchors([root.certificate])
    configuration.certificateProfile = profile
    return try CNTrustEvaluator(configuration: configuration)
  }

  @Test func aChainAsPublicCAsIssueItPassesTheStrictProfile() throws {
    let pki = try TestPKI()
    let verified = try Self.evaluator(pki.root, .webPKI).verify(
      [pki.leaf.certificate, pki.intermediate.certificate], for: "api.test")
    #expect(verified == pki.leaf.chain)
    #expect(WebPKIProfile.violation(pki.leaf.chain, scope: .wholeChain(chosenAnchors: [])) == nil)
  }

  @Test func aLeafCNOutsideItsSANsIsRefusedStrictlyAndKeptWithCustomAnchors() throws {
    let pki = try TestPKI(leaf: "Payments Service", dnsNames: ["payments.internal"], ipAddresses: [])
    let chain = [pki.leaf.certificate, pki.intermediate.certificate]
    #expect(throws: Never.self) { try Self.evaluator(pki.root, .automatic).verify(chain, for: "payments.internal") }
    #expect(
      throws: CNPinnedSessionError.untrustedChain(
        host: "payments.internal",
        reason:
          "the Web-PKI profile refuses it: the leaf's CN \"Payments Service\" is not one of its subjectAltName entries (CABF BR 7.1.4.3)"
      )
    ) { try Self.evaluator(pki.root, .webPKI).verify(chain, for: "payments.internal") }
    #expect(throws: Never.self) { try Self.evaluator(pki.root, .openSSL).verify(chain, for: "payments.internal") }
  }

  /// Names a certificate carries reach error messages escaped and quoted, so that a line feed or
  /// a terminal escape in a CN cannot forge a line in a log or on a terminal.
  @Test func certificateNamesInRefusalsAreEscaped() throws {
    let pki = try TestPKI(leaf: "evil\nOK: accepted", dnsNames: ["api.test"], ipAddresses: [])
    let profile = try #require(WebPKIProfile.violation(pki.leaf.chain, scope: .belowAnchor))
    #expect(profile == #"the leaf's CN "evil\x0aOK: accepted" is not one of its subjectAltName entries (CABF BR 7.1.4.3)"#)
    let root = try TestIdentity.root("Root")
    var spec = TestCertificateSpec.ca("CA\u{1B}[2J")
    spec.digest = .sha1
    let weak = try root.issue(spec).issueLeaf("api.test", dnsNames: ["api.test"])
    #expect(CertificateWeakness(weak.chain) == .signatureHash(certificate: #""CA\x1b[2J""#, found: "SHA-1"))
  }

  @Test func theProfileFollowsTheTrustByDefault() {
    #expect(CNCertificateProfile.automatic.scope(under: .system) == .belowAnchor)
    #expect(CNCertificateProfile.automatic.scope(under: .customAnchors([])) == nil)
    #expect(CNCertificateProfile.automatic.scope(under: .systemAndCustomAnchors([])) == nil)
    #expect(CNCertificateProfile.webPKI.scope(under: .customAnchors([])) == .wholeChain(chosenAnchors: []))
    #expect(CNCertificateProfile.webPKI.scope(under: .system) == .wholeChain(chosenAnchors: []))
    #expect(CNCertificateProfile.openSSL.scope(under: .system) == nil)
  }

  /// The strict mode judges the trust anchor too, by rules every root of the system's trust store
  /// meets (Debian's ca-certificates where this runs): strict mode must not refuse a public site
  /// for its root alone. A root a later bundle adds that breaks them fails here first.
  @Test func everyRootOfTheSystemStoreMeetsTheStrictRootRules() throws {
    let bundle = try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
    let roots = try CNCertificate.certificates(pemEncoded: bundle)
    #expect(roots.count >= 100)
    let refused = roots.compactMap { root in WebPKIProfile.anchorViolation(root) }
    #expect(refused.isEmpty, "\(refused)")
    print("strict root rules: \(roots.count) roots of the system trust store, \(refused.count) refused")
  }

  /// The rules strict mode applies to an anchor the app chose and not to the system's roots,
  /// measured on the system's store: the roots that break them, named in the decisions.
  @Test func theSystemRootsThatBreakTheChosenAnchorRulesAreTheOnesNamed() throws {
    let bundle = try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
    let roots = try CNCertificate.certificates(pemEncoded: bundle)
    let breaking = roots.compactMap { root in WebPKIProfile.chosenAnchorViolation(root).map { _ in root.commonName ?? "?" } }
    print("chosen-anchor rules: \(breaking.count) of \(roots.count) system roots break them: \(breaking.sorted())")
    for root in roots where WebPKIProfile.chosenAnchorViolation(root) != nil {
      let chain = [root, root]
      #expect(WebPKIProfile.violation(anchorOf: chain, chosenAnchors: []) == nil, "a system root is judged by the system's rules")
      #expect(WebPKIProfile.violation(anchorOf: chain, chosenAnchors: [root]) != nil, "the same root given by the app is not")
    }
  }

  /// An IP address in a CN must be spelled as the SAN's canonical text (RFC 5952 for IPv6).
  @Test(
    arguments: [
      ([127, 0, 0, 1], "127.0.0.1"), ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], "::1"),
      ([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], "2001:db8::1"),
      ([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], "2001:db8::1:0:0:1"),
      ([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1], "2001:db8:0:1:1:1:1:1"),
      ([UInt8](repeating: 0, count: 16), "::"), ([0, 1] + [UInt8](repeating: 0, count: 14), "1::"),
    ] as [([UInt8], String)])
  func ipAddressesAreWrittenCanonically(_ bytes: [UInt8], _ text: String) {
    #expect(IPAddress.text(ofAddressBytes: bytes) == text)
  }
}
#endif
