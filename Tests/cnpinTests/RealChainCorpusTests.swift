// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Real chains that sites served, replayed at their own capture time (issue 64, item 5): x509-limbo's
/// `online::` cases (Tests/Vectors/x509-limbo, Apache-2.0), each a leaf, what the server sent
/// and the root it verified to. Through `cnpin pins --chain` and `cnpin check --chain` with `--at`
/// set to the capture time, every one is suggested and accepted. Where the chain's CA has a
/// catalogued successor (Let's Encrypt's E-series in February 2026, GlobalSign's R3 in January
/// 2026), the suggestion also accepts the successor's shapes (built with the test kit's keys
/// under the real names), and the pins written from the chain alone, as the tools wrote them
/// before, are warned about at that date: `lint --rehearse` names the successor, and
/// `--warn-days` the day the family stops issuing. Before, nothing warned.
@Suite("Real chains at their capture time")
struct RealChainCorpusTests {
  struct Case: Sendable, CustomStringConvertible {
    let id: String
    let host: String
    let time: String
    /// Leaf first, then what the server sent.
    let sent: String
    let root: String
    var description: String { id }
  }

  static let cases: [Case] = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../Vectors/x509-limbo/limbo.json")
    guard let data = try? Data(contentsOf: url),
      let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let testcases = top["testcases"] as? [[String: Any]]
    else { return [] }
    return testcases.compactMap { testcase in
      guard let id = testcase["id"] as? String, id.hasPrefix("online::"), let leaf = testcase["peer_certificate"] as? String,
        let time = testcase["validation_time"] as? String, let name = testcase["expected_peer_name"] as? [String: Any],
        let host = name["value"] as? String
      else { return nil }
      let intermediates = (testcase["untrusted_intermediates"] as? [String]) ?? []
      let trusted = (testcase["trusted_certs"] as? [String]) ?? []
      // limbo writes times as 2026-02-19T14:15:03+00:00; cnpin's --at takes Z.
      return Case(
        id: id, host: host, time: time.replacingOccurrences(of: "+00:00", with: "Z"),
        sent: ([leaf] + intermediates).joined(separator: "\n"), root: trusted.joined(separator: "\n"))
    }
  }()

  @Test func theCorpusIsThere() {
    #expect(Self.cases.count == 14)
  }

  @Test(arguments: cases)
  func eachChainIsSuggestedAndAcceptedAtItsTime(_ chain: Case) async throws {
    let directory = try TemporaryDirectory()
    let sent = try directory.file("sent.pem", chain.sent)
    let root = try directory.file("root.pem", chain.root)
    let pins = try await cnpin([
      "pins", "--chain", sent, "--host", chain.host, "--cafile", root, "--at", chain.time, "--format", "json", "--document",
    ])
    #expect(pins.status == 0, "\(pins.stderr)")
    let config = try directory.file("pins.json", pins.stdout)
    let check = try await cnpin([
      "check", "--config", config, "--chain", sent, "--host", chain.host, "--cafile", root, "--at", chain.time,
    ])
    #expect(check.status == 0 && check.stdout.hasPrefix("PASS"), "\(check.stdout)\(check.stderr)")
  }

  /// The chains whose family the catalogue says stops (or stopped) issuing after their time,
  /// with its successor: the suggestion carries it, and the pins of the chain alone are warned.
  @Test(arguments: [
    ("online::stackoverflow.com", "Let's Encrypt Generation Y ECDSA", "2026-05-13", "Let's Encrypt Generation X ECDSA"),
    ("online::docs.python.org", "GlobalSign Atlas R46 DV", "2027-04-15", "GlobalSign Atlas R3 DV"),
  ])
  func aChainWhoseCAMovesOnIsSuggestedWithItsSuccessor(
    _ id: String, _ successorTitle: String, _ lastDay: String, _ familyTitle: String
  ) async throws {
    let chain = try #require(Self.cases.first { $0.id == id })
    let catalogue = CACatalogue.compiledIn
    let successor = try #require(catalogue.families.first { $0.title == successorTitle })
    let directory = try TemporaryDirectory()
    let sent = try directory.file("sent.pem", chain.sent)
    let root = try directory.file("root.pem", chain.root)

    // The suggestion at the capture time carries the successor, saying why.
    let pins = try await cnpin([
      "pins", "--chain", sent, "--host", chain.host, "--cafile", root, "--at", chain.time, "--format", "json", "--document",
    ])
    #expect(pins.status == 0)
    #expect(pins.stderr.contains("the suggestion also carries \(successorTitle)"), "\(pins.stderr)")
    let suggested = try CNPinningDocument(data: Data(pins.stdout.utf8))
    let manager = CNPinningManager(document: suggested)
    for shape in try Self.built(successor, host: chain.host) {
      #expect(
        manager.evaluate(host: chain.host, chain: shape.reversed()).acceptedMatch != nil,
        "the suggestion refuses \(shape.map { $0.commonName ?? "-" })")
    }

    // The pins the tools wrote from the chain alone (before): the rehearsal at that time names
    // the successor, and --warn-days the family's last day.
    let alone = try SuggestedPins.configuration(
      shapes: [try await Self.verifiedAtTime(chain)], host: chain.host, includesSubdomains: false)
    let old = try directory.file("old.json", DocumentWriter.json([(chain.host, alone)]))
    let rehearsal = try await cnpin(["lint", old, "--trust", "none", "--rehearse", "--at", chain.time])
    #expect(rehearsal.stdout.contains("refuses \(successorTitle) (announced for"), "\(rehearsal.stdout)")
    let days =
      Int((try #require(CACatalogue.day(lastDay))).timeIntervalSince(try #require(ISO8601.date(from: chain.time))) / 86_400) + 2
    let calendar = try await cnpin(["lint", old, "--trust", "none", "--at", chain.time, "--warn-days", "\(days)"])
    #expect(calendar.status == 4, "\(calendar.stdout)")
    #expect(
      calendar.stdout.contains("calendar \(lastDay)") && calendar.stdout.contains("\(familyTitle) stops issuing"),
      "\(calendar.stdout)")
    // After the family's last day, the same pins are an error of the rehearsal.
    let after = try await cnpin(["lint", old, "--trust", "none", "--rehearse", "--at", "\(lastDay)T12:00:00Z"])
    #expect(after.status == 2 && after.stdout.contains("refuses every certificate issued after \(lastDay)"), "\(after.stdout)")
  }

  /// A root leaving a store warns before its date: GlobalSign R3 (its key of 2009) leaves
  /// Chrome's store on 2027-04-15.
  @Test func aPinnedRootLeavingAStoreWarnsBeforeItsDate() async throws {
    let chain = try #require(Self.cases.first { $0.id == "online::docs.python.org" })
    let directory = try TemporaryDirectory()
    let alone = try SuggestedPins.configuration(
      shapes: [try await Self.verifiedAtTime(chain)], host: chain.host, includesSubdomains: false)
    let old = try directory.file("old.json", DocumentWriter.json([(chain.host, alone)]))
    let soon = try await cnpin(["lint", old, "--trust", "none", "--at", "2027-03-01", "--warn-days", "60"])
    #expect(soon.status == 4)
    #expect(
      soon.stdout.contains("calendar 2027-04-15 (in 45 days): Chrome: Chrome removes roots whose keys were made in 2008-09"),
      "\(soon.stdout)")
    #expect(soon.stdout.contains(#"chainSet[0] starts at "GlobalSign""#), "\(soon.stdout)")
    let later = try await cnpin(["lint", old, "--trust", "none", "--at", "2027-03-01", "--warn-days", "30"])
    #expect(later.status == 0, "\(later.stdout)")
  }

  /// The chain of `chain` as `cnpin pins --chain --format pem` verifies it at its time, root → leaf.
  static func verifiedAtTime(_ chain: Case) async throws -> [CNCertificate] {
    let directory = try TemporaryDirectory()
    let run = try await cnpin([
      "pins", "--chain", try directory.file("sent.pem", chain.sent), "--host", chain.host, "--cafile",
      try directory.file("root.pem", chain.root), "--at", chain.time, "--format", "pem",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    return try CNCertificate.certificates(pemEncoded: run.stdout).reversed()
  }

  /// Every shape × issuing CA of `family`, built with the test kit's keys under the real names,
  /// root → leaf, the leaf valid for `host` without a CN.
  static func built(_ family: CACatalogue.Family, host: String) throws -> [[CNCertificate]] {
    var keys: [String: TestPrivateKey] = [:]
    func spec(_ name: String) throws -> TestCertificateSpec {
      var spec = TestCertificateSpec.ca(name)
      if keys[name] == nil { keys[name] = try TestPrivateKey.generate(.p256) }
      spec.key = keys[name]!
      return spec
    }
    var built: [[CNCertificate]] = []
    for issuing in family.issuing {
      for shape in family.shapes {
        var issuer = try TestIdentity.selfSigned(try spec(shape.above[0]))
        var chain = [issuer.certificate]
        for name in shape.above.dropFirst() {
          issuer = try issuer.issue(try spec(name))
          chain.append(issuer.certificate)
        }
        let ca = try issuer.issue(try spec(issuing))
        var leaf = TestCertificateSpec.leaf("unused", dnsNames: [host])
        leaf.subject = []
        built.append(chain + [ca.certificate, try ca.issue(leaf).certificate])
      }
    }
    return built
  }
}
#endif
