// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Real CA changes of the last years, each as the chains a client verified before and after it,
/// by Common Name and shape (names and dates from each CA's own announcement, linked), built with
/// the test kit: does the entry `cnpin pins` suggests for "before" accept "after"? Routine
/// renewals must; a change of hierarchy cannot, and then `cnpin check --chain` with "after" fails
/// it, saying which link differs, months before the CA switches.
@Suite("Rotation corpus")
struct RotationCorpusTests {
  struct Change: Sendable, CustomStringConvertible {
    let name: String
    let source: String
    /// Root → leaf. A name in `crossSigned` is that root as the one before it signed it.
    let before: [String]
    let after: [String]
    var crossSigned: Set<String> = []
    /// Whether the suggestion for `before` must accept `after` (a routine renewal).
    let routine: Bool

    var description: String { name }
  }

  static let changes: [Change] = [
    Change(
      name: "Let's Encrypt R3 → R11 (2024)", source: "https://letsencrypt.org/2024/03/19/new-intermediate-certificates/",
      before: ["ISRG Root X1", "R3", "example.org"], after: ["ISRG Root X1", "R11", "example.org"], routine: true),
    Change(
      name: "Let's Encrypt E1 → E6 (2024)", source: "https://letsencrypt.org/2024/03/19/new-intermediate-certificates/",
      before: ["ISRG Root X2", "E1", "example.org"], after: ["ISRG Root X2", "E6", "example.org"], routine: true),
    Change(
      name: "Let's Encrypt leaves the DST Root CA X3 cross-sign (2021)",
      source: "https://letsencrypt.org/docs/dst-root-ca-x3-expiration-september-2021/",
      before: ["DST Root CA X3", "ISRG Root X1", "R3", "example.org"], after: ["ISRG Root X1", "R3", "example.org"],
      crossSigned: ["ISRG Root X1"], routine: false),
    Change(
      name: "Let's Encrypt Generation X → Y (2026)", source: "https://letsencrypt.org/2025/11/24/gen-y-hierarchy.html",
      before: ["ISRG Root X1", "R11", "example.org"], after: ["ISRG Root X1", "Root YR", "YR2", "example.org"],
      crossSigned: ["Root YR"], routine: false),
    Change(
      name: "Google Trust Services GTS CA 1C3 → WR1 (2024)", source: "https://pki.goog/repository/",
      before: ["GTS Root R1", "GTS CA 1C3", "example.org"], after: ["GTS Root R1", "WR1", "example.org"], routine: false),
    Change(
      name: "Google Trust Services WR1 through the GlobalSign Root CA cross-sign", source: "https://pki.goog/repository/",
      before: ["GTS Root R1", "GTS CA 1C3", "example.org"], after: ["GlobalSign Root CA", "GTS Root R1", "WR1", "example.org"],
      crossSigned: ["GTS Root R1"], routine: false),
    Change(
      name: "DigiCert Global Root CA → Global Root G2 (2023)",
      source: "https://knowledge.digicert.com/alerts/digicert-g2-root-and-intermediate-ca-certificate-replacement-2023",
      before: ["DigiCert Global Root CA", "DigiCert TLS RSA SHA256 2020 CA1", "example.org"],
      after: ["DigiCert Global Root G2", "DigiCert Global G2 TLS RSA SHA256 2020 CA1", "example.org"], routine: false),
    Change(
      name: "Amazon RSA 2048 M01 → M03", source: "https://www.amazontrust.com/repository/",
      before: ["Amazon Root CA 1", "Amazon RSA 2048 M01", "example.org"],
      after: ["Amazon Root CA 1", "Amazon RSA 2048 M03", "example.org"], routine: true),
  ]

  /// A chain as a client verifies it, leaf first, and the PEM a server sends (leaf first, the
  /// anchor left out), with the anchor.
  struct Built {
    let verified: [CNCertificate]
    let served: [CNCertificate]
    let anchor: CNCertificate
  }

  /// Builds `names` (root → leaf); a name in `crossSigned` is made twice with one key, self-signed
  /// and signed by the name before it, and what it issues hangs off the self-signed one.
  static func build(_ names: [String], crossSigned: Set<String>) throws -> Built {
    let root = try TestIdentity.root(names[0])
    var issuer = root
    var verified = [root.certificate]
    for (index, name) in names.dropFirst().enumerated() where index < names.count - 2 {
      if crossSigned.contains(name) {
        let key = try TestPrivateKey.generate(.p256)
        var spec = TestCertificateSpec.ca(name)
        spec.key = key
        let cross = try issuer.issue(spec)
        verified.append(cross.certificate)
        issuer = try TestIdentity.selfSigned(spec)
      } else {
        issuer = try issuer.issueIntermediate(name)
        verified.append(issuer.certificate)
      }
    }
    let leaf = try issuer.issueLeaf(names.last!, dnsNames: [names.last!])
    verified.append(leaf.certificate)
    let leafFirst = Array(verified.reversed())
    return Built(verified: leafFirst, served: Array(leafFirst.dropLast()), anchor: root.certificate)
  }

  @Test func routineRenewalsSurviveAndHierarchyChangesAreCaughtByTheRehearsal() async throws {
    let directory = try TemporaryDirectory()
    var survived = 0
    var caught = 0
    for (index, change) in Self.changes.enumerated() {
      let before = try Self.build(change.before, crossSigned: change.crossSigned)
      let after = try Self.build(change.after, crossSigned: change.crossSigned)
      #expect(before.verified.map { $0.commonName ?? "?" }.reversed() == change.before, "\(change)")
      #expect(after.verified.map { $0.commonName ?? "?" }.reversed() == change.after, "\(change)")
      let suggested = try SuggestedPins.configuration(
        shapes: [Array(before.verified.reversed())], host: "example.org", includesSubdomains: false)
      let manager = try CNPinningManager(configuration: ["example.org": suggested])
      let accepted: Bool
      if case .accepted = manager.evaluate(host: "example.org", chain: after.verified) {
        accepted = true
      } else {
        accepted = false
      }
      #expect(accepted == change.routine, "\(change): the suggestion for before \(accepted ? "accepts" : "refuses") after")
      if accepted {
        survived += 1
        continue
      }
      // Rehearsed: the suggestion for before, judged against the chain after, offline.
      let config = try directory.file("before-\(index).json", DocumentWriter.json([("example.org", suggested)]))
      let chain = try directory.file("after-\(index).pem", after.served.map(\.pemEncoded).joined())
      let anchor = try directory.file("anchor-\(index).pem", after.anchor.pemEncoded)
      let run = try await cnpin(["check", "--config", config, "--chain", chain, "--cafile", anchor, "--host", "example.org"])
      #expect(run.status == 1, "\(change): \(run.stdout)\(run.stderr)")
      #expect(run.stdout.hasPrefix("FAIL       example.org ("), "\(change): \(run.stdout)")
      #expect(run.stdout.contains("does not match") || run.stdout.contains("certificates"), "\(change): \(run.stdout)")
      if run.status == 1 { caught += 1 }
    }
    print(
      "rotation corpus: \(Self.changes.count) CA changes; the suggestion for the chain before accepts the chain after in \(survived) (routine renewals) and refuses it in \(Self.changes.count - survived) (hierarchy changes), each of which cnpin check --chain fails with the link that differs: \(caught)"
    )
  }
}
#endif
