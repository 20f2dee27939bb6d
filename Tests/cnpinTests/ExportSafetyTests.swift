// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// An export never accepts what the configuration refuses (issue 65, item 4), drift that cannot be
/// read is drift (item 5), and `lint --against` exports again from the export's own inputs
/// (item 6).
@Suite("Exports that never loosen, and drift")
struct ExportSafetyTests {
  static let keyA = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="
  static let keyB = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="

  /// The review's case: a host pinned by a CN chain and two `leaf` SPKI pins (its own leaf keys)
  /// was exported as one set of its CA's and leaf keys, so a leaf the same CA issued with another
  /// key was accepted by the export and refused by CNPinning. Now the leaf keys alone go, and
  /// the exported NSPinnedDomains, enforced by `cnpin get`, refuses that leaf as the source does.
  @Test func keyPinsBesideAChainAreExportedAlone() async throws {
    let fixture = try Fixture()
    let pki = try TestPKI(root: "Safety Root X1", intermediate: "S11", leaf: "api.test", dnsNames: ["api.test"])
    let sibling = try pki.intermediate.issueLeaf("api.test", dnsNames: ["api.test"])  // same CA, another key
    let genuine = try LocalTLSServer.start(.init(identity: pki.leaf) { _ in .text("hello") })
    let siblingServer = try LocalTLSServer.start(.init(identity: sibling) { _ in .text("hello") })
    defer {
      genuine.stop()
      siblingServer.stop()
    }
    let caFile = try fixture.directory.file("safety-ca.pem", pki.root.certificate.pemEncoded)
    let chainFile = try fixture.directory.file("safety-chain.pem", pki.intermediate.certificate.pemEncoded)
    let leafKey = pki.leaf.certificate.spkiSHA256Base64
    let source = try fixture.directory.file(
      "safety.json",
      #"""
      {"PinnedDomains": {"api.test": {"includesSubdomains": false,
        "chainSet": [[{"type": "exact", "value": "Safety Root X1"}, {"type": "exact", "value": "S11"}, {"type": "subjectAltName", "value": "api.test"}]],
        "spkiPins": [{"sha256": "\#(leafKey)", "appliesTo": "leaf"}, {"sha256": "\#(Self.keyA)", "appliesTo": "leaf"}]}}}
      """#)
    let output = fixture.directory.url.appendingPathComponent("Info.plist").path
    let export = try await cnpin([
      "convert", source, "--to", "nspinneddomains", "--cafile", caFile, "--chain", chainFile, "-o", output,
    ])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(
      export.stderr.contains(#"note: PinnedDomains["api.test"].chainSet: the CN chains are not carried"#), "\(export.stderr)")
    let exported = try #require(try CNPinningDocument(contentsOf: URL(fileURLWithPath: output)).entries.first?.configuration)
    #expect(Set(exported.spkiPins.map(\.sha256Base64)) == [leafKey, Self.keyA])
    #expect(exported.spkiPins.allSatisfy { $0.scope == .leaf })

    for (server, accepted) in [(genuine, true), (siblingServer, false)] {
      let url = "https://api.test:\(server.port)/"
      let resolve = ["--resolve", "api.test:\(server.port):127.0.0.1", "--cafile", caFile]
      let bySource = try await cnpin(["get", url, "--config", source] + resolve)
      let byExport = try await cnpin(["get", url, "--config", output] + resolve)
      #expect((bySource.status == 0) == accepted, "\(bySource.stderr)")
      #expect((byExport.status == 0) == accepted, "the export \(accepted ? "refused" : "accepted") it: \(byExport.stderr)")
    }
  }

  /// Key pins of two scopes must each find a match; a format with one set of keys cannot say so.
  @Test func keyPinsOfSeveralScopesAreNotFlattened() async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "spkiPins": [{"sha256": "\#(Self.keyA)", "appliesTo": "leaf"}, {"sha256": "\#(Self.keyB)", "appliesTo": "ca"}]}}}"#
    )
    for format in ["nsc", "okhttp", "trustkit"] {
      let output = directory.url.appendingPathComponent("out.\(format)").path
      let export = try await cnpin(["convert", source, "--to", format, "--trust", "none", "-o", output])
      #expect(export.status == 1, "\(format): \(export.stderr)")
      #expect(
        export.stderr.contains(
          #"PinnedDomains["api.example.com"].spkiPins: the pins of each scope (ca, leaf) must all find a match"#),
        "\(export.stderr)")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
    // NSPinnedDomains has a leaf set and a CA set, and ATS asks a match in each.
    let ats = try await cnpin(["convert", source, "--to", "nspinneddomains", "--trust", "none"])
    #expect(ats.status == 0, "\(ats.stderr)")
    #expect(ats.stdout.contains("NSPinnedLeafIdentities") && ats.stdout.contains("NSPinnedCAIdentities"))
  }

  /// A `.domain` leaf rule on the domain's own name refuses every leaf valid only for it; a key
  /// format would accept such a leaf. Not exported (exit 1), and lint says why.
  @Test func aDomainLeafRuleOnItsOwnNameIsNamed() async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"example.com": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "ISRG Root X1"}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": ".example.com"}], [{"type": "exact", "value": "ISRG Root X2"}, {"type": "prefixWithNumber", "value": "YE"}, {"type": "subjectAltName", "value": "example.com"}]]}}}"#
    )
    let export = try await cnpin(["convert", source, "--to", "nsc", "--trust", "none"])
    #expect(export.status == 1)
    #expect(export.stdout.isEmpty)
    #expect(
      export.stderr.contains(
        #"PinnedDomains["example.com"].chainSet[0][2]: the leaf rule subjectAltName ".example.com" asks for a name below example.com, so it refuses every leaf valid only for example.com itself"#
      ), "\(export.stderr)")
    let lint = try await cnpin(["lint", source, "--trust", "none"])
    #expect(
      lint.stdout.contains(
        #"error: PinnedDomains["example.com"].chainSet[0][2]: subjectAltName ".example.com" asks for a name below example.com"#),
      "\(lint.stdout)")
  }

  /// `lint --against` takes the inputs the export was made from out of its header; one it cannot
  /// find is named, not reported as drift.
  @Test func driftIsCheckedAgainstTheExportsOwnInputs() async throws {
    let fixture = try Fixture()
    let chainFile = try fixture.directory.file("next.pem", fixture.genuineChain[1].pemEncoded)
    let source = try fixture.directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "Test Root X1"}, {"type": "exact", "value": "R11"}, {"type": "subjectAltName", "value": "api.test"}], [{"type": "exact", "value": "Rogue Root CA"}, {"type": "exact", "value": "R11"}, {"type": "subjectAltName", "value": "api.test"}]]}}}"#
    )
    let output = fixture.directory.url.appendingPathComponent("network_security_config.xml").path
    let export = try await cnpin([
      "convert", source, "--to", "nsc", "--cafile", fixture.caFile, "--chain", chainFile, "-o", output,
    ])
    #expect(export.status == 0, "\(export.stderr)")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(
      text.contains(
        #"Inputs, which cnpin lint reads to check drift: {"cafile":["\#(fixture.caFile)"],"chain":["\#(chainFile)"]}"#), "\(text)"
    )
    let clean = try await cnpin(["lint", source, "--against", output])
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    #expect(clean.stdout.contains("no drift"))

    try FileManager.default.removeItem(atPath: chainFile)
    let missing = try await cnpin(["lint", source, "--against", output])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("was exported with --chain \(chainFile), which cannot be found here"), "\(missing.stderr)")
    #expect(!missing.stdout.contains("drift:"))
  }

  /// The review's list of edits that turn pins off or change them, each found and named by its
  /// line: the export, edited, against the configuration it came from.
  @Test(arguments: [
    // Android: anchors that bypass the pin-set, debug builds' anchors, an element Android skips.
    (
      "nsc", "  </domain-config>",
      #"    <trust-anchors><certificates src="user" overridePins="true"/></trust-anchors>\#n  </domain-config>"#,
      #"overridePins="true": chains ending at these anchors bypass the pin-set"#
    ),
    (
      "nsc", "</network-security-config>",
      "  <debug-overrides><trust-anchors><certificates src=\"user\"/></trust-anchors></debug-overrides>\n</network-security-config>",
      "in <debug-overrides>: in a debug build these anchors bypass the pin-set"
    ),
    ("nsc", "<pin-set", "<pinset></pinset>\n    <pin-set", "<pinset> inside <domain-config>, which Android skips or refuses"),
    // OkHttp: pins added otherwise than by a plain .add call, a pin moved into a nested comment.
    (
      "okhttp", "    .build()", "    .apply { add(\"api.example.com\", \"sha256/\(keyA)\") }\n    .build()",
      "a pin added in a way cnpin does not read"
    ),
    ("okhttp", "    .build()", "    .add(HOST, \"sha256/\(keyA)\")\n    .build()", "a pin added in a way cnpin does not read"),
    (
      "okhttp", "    .build()", "    .add(\"api.example.com\", \"sha256/$PIN\")\n    .build()",
      "a pin added in a way cnpin does not read"
    ),
    (
      "okhttp", "    .add(\"api.example.com\", \"sha256/\(keyB)\")",
      "    /* backup, /* nested */ .add(\"api.example.com\", \"sha256/\(keyB)\") */",
      "lacks key \(keyB)"
    ),
    // TrustKit: pinning skipped for user anchors, keys cnpin does not write.
    (
      "trustkit", "<key>TSKIgnorePinningForUserDefinedTrustAnchors</key>\n  <false/>",
      "<key>TSKIgnorePinningForUserDefinedTrustAnchors</key>\n  <true/>",
      "TSKIgnorePinningForUserDefinedTrustAnchors is not false"
    ),
    (
      "trustkit", "      <key>TSKEnforcePinning</key>",
      "      <key>kSKExcludeSubdomainFromParentPolicy</key>\n      <false/>\n      <key>TSKEnforcePinning</key>",
      "TrustKit key kSKExcludeSubdomainFromParentPolicy, which cnpin does not write"
    ),
  ])
  func anEditThatCannotBeReadIsDrift(_ format: String, _ original: String, _ edit: String, _ words: String) async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "spkiPins": [{"sha256": "\#(Self.keyA)"}, {"sha256": "\#(Self.keyB)"}]}}}"#
    )
    let output = directory.url.appendingPathComponent("out.\(format)").path
    let export = try await cnpin(["convert", source, "--to", format, "--trust", "none", "-o", output])
    #expect(export.status == 0, "\(export.stderr)")
    let clean = try await cnpin(["lint", source, "--against", output])
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(text.contains(original), "\(text)")
    let edited = try directory.file("edited.\(format)", text.replacingOccurrences(of: original, with: edit))
    let drift = try await cnpin(["lint", source, "--against", edited])
    #expect(drift.status == 1, "\(drift.stdout)\(drift.stderr)")
    let line = drift.stdout.split(separator: "\n").first { $0.contains(words) }
    #expect(line != nil, "\(drift.stdout)")
    if !words.hasPrefix("lacks key") { #expect(line?.contains(": drift: line ") == true, "\(drift.stdout)") }
  }
}
#endif
