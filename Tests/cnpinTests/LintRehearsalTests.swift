// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Lint as a team rehearsing a CA change uses it: a backup chain whose root stores are about to
/// carry, a key pin that would silently refuse the backup, the catalogue's shapes, and the CLI's
/// counts, hints and help.
@Suite("cnpin lint, rehearsing a CA change")
struct LintRehearsalTests {
  /// Today's private PKI and the next one, whose root devices are about to trust.
  struct Change {
    let directory: TemporaryDirectory
    let today: TestIdentity
    let next: TestIdentity
    let todayAnchors: String
    let futureAnchors: String

    init() throws {
      directory = try TemporaryDirectory()
      today = try TestIdentity.root("Old Root CA 1")
      next = try TestIdentity.root("Next Root R46")
      todayAnchors = try directory.file("today.pem", today.certificate.pemEncoded)
      futureAnchors = try directory.file("future.pem", next.certificate.pemEncoded)
    }

    /// api.test pinned to both hierarchies, with `spkiPins` (JSON) beside the chains.
    func configuration(spkiPins: [CNCertificate] = []) throws -> String {
      let pins = spkiPins.map { #"{"sha256": "\#($0.spkiSHA256Base64)", "appliesTo": "ca"}"# }.joined(separator: ", ")
      return try directory.file(
        "pins.json",
        #"""
        {"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [
          [{"type": "prefixWithNumber", "value": "Old Root CA "}, {"type": "prefixWithNumber", "value": "Old Issuing CA "}, {"type": "subjectAltName", "value": "api.test"}],
          [{"type": "prefixWithNumber", "value": "Next Root R"}, {"type": "prefixWithNumber", "value": "Next DV R"}, {"type": "subjectAltName", "value": "api.test"}]
        ]\#(spkiPins.isEmpty ? "" : #", "spkiPins": [\#(pins)]"#)}}}
        """#)
    }
  }

  @Test func aBackupChainWhoseRootIsAboutToBeTrustedIsNoError() async throws {
    let change = try Change()
    let file = try change.configuration()
    let before = try await cnpin(["lint", file, "--cafile", change.todayAnchors])
    #expect(before.status == 2 && before.stdout.contains("matches none of the 1 trust anchors, so this chain can never match"))
    let rehearsed = try await cnpin(["lint", file, "--cafile", change.todayAnchors, "--future-anchors", change.futureAnchors])
    #expect(rehearsed.status == 0, "\(rehearsed.stdout)")
    #expect(
      rehearsed.stdout.contains(
        #"chainSet[1][0]: prefixWithNumber "Next Root R" is a root stores are about to carry (--future-anchors)"#),
      "\(rehearsed.stdout)")
  }

  /// One CA key pinned, the first hierarchy's: the backup chain would fail the SPKI pins at the
  /// switch, and lint used to pass it.
  @Test func aKeyPinThatRefusesTheBackupChainIsAnError() async throws {
    let change = try Change()
    let arguments = ["--cafile", change.todayAnchors, "--future-anchors", change.futureAnchors]
    let onlyToday = try await cnpin(["lint", try change.configuration(spkiPins: [change.today.certificate])] + arguments)
    #expect(onlyToday.status == 2, "\(onlyToday.stdout)")
    #expect(
      onlyToday.stdout.contains(
        #"chainSet[1]: the host's spkiPins (appliesTo ca) pin only "Old Root CA 1", which none of this chain's CA links names"#),
      "\(onlyToday.stdout)")
    let both = try await cnpin(
      ["lint", try change.configuration(spkiPins: [change.today.certificate, change.next.certificate])] + arguments)
    #expect(both.status == 0, "\(both.stdout)")
  }

  /// The catalogue's keys identify a pin without any anchor: YR1's key pinned alone refuses the
  /// ECDSA chain beside it.
  @Test func theCataloguesKeysIdentifyAPinnedIntermediate() async throws {
    let directory = try TemporaryDirectory()
    let yr1 = try #require(CACatalogue.compiledIn.knownKeys.first { $0.name == "YR1" }?.spkiSHA256)
    let file = try directory.file(
      "pins.json",
      #"""
      {"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [
        [{"type": "exact", "value": "ISRG Root X1"}, {"type": "exact", "value": "Root YR", "mayBeAnchor": true}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": "api.test"}],
        [{"type": "exact", "value": "ISRG Root X2"}, {"type": "exact", "value": "Root YE", "mayBeAnchor": true}, {"type": "prefixWithNumber", "value": "YE"}, {"type": "subjectAltName", "value": "api.test"}]
      ], "spkiPins": [{"sha256": "\#(yr1)", "appliesTo": "ca"}]}}}
      """#)
    let run = try await cnpin(["lint", file, "--trust", "none"])
    #expect(run.status == 2)
    #expect(run.stdout.contains(#"chainSet[1]: the host's spkiPins (appliesTo ca) pin only "YR1""#), "\(run.stdout)")
    #expect(!run.stdout.contains("chainSet[0]: the host's spkiPins"), "\(run.stdout)")
  }

  /// `--rehearse`: each shape of a catalogued CA that the chainSet refuses, with the stores that
  /// verify it; the README's chainSet passes.
  @Test func rehearseNamesTheShapesAChainSetRefuses() async throws {
    let directory = try TemporaryDirectory()
    let fourOnly = try directory.file(
      "four.json",
      #"""
      {"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [
        [{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "exact", "value": "Root YR"}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": "api.test"}],
        [{"type": "exact", "value": "ISRG Root X2"}, {"type": "exact", "value": "Root YE"}, {"type": "exact", "value": "YE1"}, {"type": "subjectAltName", "value": "api.test"}]
      ]}}}
      """#)
    let run = try await cnpin(["lint", fourOnly, "--trust", "none", "--rehearse"])
    #expect(run.status == 0, "\(run.stdout)")
    #expect(
      run.stdout.contains(
        #"refuses Let's Encrypt Generation Y RSA (current since 2026-05-13) as stores that carry Root YR: none yet (submitted to the root programs) verify it: ["Root YR" → "YR1 or YR2 or YR3" → leaf]"#
      ), "\(run.stdout)")
    #expect(
      run.stdout.contains(
        #"["ISRG Root X2" → "Root YE" → "YE2 or YE3" → leaf] (YE3 is a backup the CA may issue from without warning)"#),
      "\(run.stdout)")
    #expect(run.stdout.contains(#"["ISRG Root X1" → "ISRG Root X2" → "Root YE" → "YE1 or YE2 or YE3" → leaf]"#), "\(run.stdout)")
    // The examples' files pass it (the README's chains: ReadmeExampleTests).
    let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples")
    for file in ["LintAtBuildTime/Sources/Pins/pins.json", "TestCNPinningApp/Sources/TestCNPinningApp/Pinning.plist"] {
      let clean = try await cnpin(["lint", examples.appendingPathComponent(file).path, "--trust", "none", "--rehearse"])
      #expect(
        clean.status == 0 && !clean.stdout.contains("refuses") && !clean.stdout.contains(": warning: "),
        "\(file): \(clean.stdout)")
    }
  }

  /// `--rehearse` over chains that name no catalogued CA says it had nothing to check, rather
  /// than nothing (which read as "no finding").
  @Test func rehearseSaysWhenItHasNothingToRehearse() async throws {
    let directory = try TemporaryDirectory()
    let file = try directory.file(
      "private.json",
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "Example Private Root"}, {"type": "exact", "value": "Example Issuing CA"}, {"type": "subjectAltName", "value": "api.test"}]]}}}"#
    )
    let run = try await cnpin(["lint", file, "--trust", "none", "--rehearse"])
    #expect(run.status == 0, "\(run.stdout)")
    #expect(
      run.stdout.contains(
        #"note: PinnedDomains["api.test"].chainSet: nothing to rehearse: none of its chains names a catalogued CA"#),
      "\(run.stdout)")
  }

  /// The summary counts every warning printed, `--warn-days`' included (it printed one warning
  /// and then "0 warning(s)"); exit 4 says something expires.
  @Test func theSummaryCountsWhatWasPrinted() async throws {
    let directory = try TemporaryDirectory()
    let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(20 * 86400))
    let file = try directory.file(
      "pins.json",
      #"""
      {"PinnedDomains": {"api.test": {"includesSubdomains": false, "expirationDate": "\#(soon)", "chainSet": [
        [{"type": "prefixWithNumber", "value": "Old Root CA "}, {"type": "subjectAltName", "value": "api.test"}],
        [{"type": "prefixWithNumber", "value": "Next Root R"}, {"type": "subjectAltName", "value": "api.test"}]
      ]}}}
      """#)
    let run = try await cnpin(["lint", file, "--trust", "none", "--warn-days", "60"])
    #expect(run.status == 4, "\(run.stdout)")
    let warnings = run.stdout.split(separator: "\n").filter { $0.contains(": warning: ") }.count
    #expect(warnings >= 1)
    #expect(run.stdout.contains("0 error(s), \(warnings) warning(s)"), "\(run.stdout)")
  }

  @Test func theOverviewListsEveryExitStatus() async throws {
    let help = try await cnpin(["--help"])
    #expect(help.stdout.contains("4 all passed, but something expires within --warn-days"), "\(help.stdout)")
  }

  /// `check`'s NOT PINNED says what `lint --host` says: a typo, or a parent domain pinned
  /// without includesSubdomains.
  @Test func notPinnedGivesTheNearMiss() async throws {
    let directory = try TemporaryDirectory()
    let pki = try TestPKI(leaf: "api.exmaple.test", dnsNames: ["api.exmaple.test", "www.example.test"])
    let file = try directory.file(
      "pins.json",
      #"""
      {"PinnedDomains": {
        "api.example.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "Test Root X1"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "subjectAltName", "value": "api.example.test"}]]},
        "example.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "Test Root X1"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "subjectAltName", "value": "example.test"}]]}
      }}
      """#)
    let chain = try directory.file("chain.pem", pki.leaf.chain.dropLast().map(\.pemEncoded).joined())
    let anchors = try directory.file("anchors.pem", pki.root.certificate.pemEncoded)
    let typo = try await cnpin(["check", "--config", file, "--chain", chain, "--cafile", anchors, "--host", "api.exmaple.test"])
    #expect(typo.status == 1)
    #expect(typo.stdout.contains("NOT PINNED"), "\(typo.stdout)")
    #expect(
      typo.stdout.contains("the configuration pins api.example.test: a typo in the configuration or the host?"), "\(typo.stdout)")
    let parent = try await cnpin(["check", "--config", file, "--chain", chain, "--cafile", anchors, "--host", "www.example.test"])
    #expect(
      parent.stdout.contains(
        "the configuration pins example.test without includesSubdomains, which does not cover its subdomains"),
      "\(parent.stdout)")
  }
}

#endif
