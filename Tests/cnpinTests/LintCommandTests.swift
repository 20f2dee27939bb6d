// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin lint")
struct LintCommandTests {
  @Test func lintReportsErrorsWithPaths() async throws {
    let directory = try TemporaryDirectory()
    let bad = try directory.file(
      "bad.json",
      #"{"PinnedDomains": {"https://x.test": {"includesSubdomains": false, "chainSet": [[{"type": "prefx", "value": "R"}]]}}}"#)
    let run = try await cnpin(["lint", bad])
    #expect(run.status == 2)
    #expect(
      run.stdout.contains(#"error: PinnedDomains["https://x.test"]: invalid host name "https://x.test": contains a URL scheme"#))
    #expect(run.stdout.contains(#"error: PinnedDomains["https://x.test"].chainSet[0][0].type: unknown link type "prefx""#))
    #expect(run.stdout.hasSuffix("2 error(s), 0 warning(s), 0 note(s)\n"))
  }

  /// An Info.plist that ATS accepts with one identity: lint warns (exit 0), and `get` uses it.
  @Test func aSingleNSPinnedIdentityIsAWarningForLintAndLoadsForGet() async throws {
    let fixture = try Fixture()
    let digest = fixture.root.certificate.spkiSHA256Base64
    let path = try fixture.directory.file(
      "Info.plist",
      #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>api.test</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\#(digest)</string></dict></array></dict></dict></dict></dict></plist>"#
    )
    let file = URL(fileURLWithPath: path)
    let lint = try await cnpin(["lint", file.path])
    #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
    #expect(lint.stdout.contains(#"warning: NSAppTransportSecurity.NSPinnedDomains["api.test"]: only one pinned identity"#))
    let get = try await cnpin(
      ["get", "--config", file.path, "--cafile", fixture.caFile, "https://api.test:\(fixture.genuine.port)/"]
        + fixture.resolve(fixture.genuine))
    #expect(get.status == 0, "\(get.stderr)")
    let rogue = try await cnpin(
      ["get", "--config", file.path, "--cafile", fixture.caFile, "https://api.test:\(fixture.rogue.port)/"]
        + fixture.resolve(fixture.rogue))
    #expect(rogue.status != 0)
    #expect(rogue.stderr.contains("api.test"), "\(rogue.stderr)")
  }

  /// The seed README's own example pins `exact "DigiCert Global Root G"`, which no root in
  /// Debian's store carries: lint (system trust by default) names G2 and G3 and the link that
  /// matches them.
  @Test func lintChecksRootLinksAgainstTheSystemTrustStore() async throws {
    let directory = try TemporaryDirectory()
    let plist = try directory.file(
      "Info.plist",
      #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CNPinningManager</key><dict><key>PinnedDomains</key><dict><key>captive.apple.com</key><dict><key>includesSubdomains</key><false/><key>chainSet</key><array><array><dict><key>type</key><string>exact</string><key>value</key><string>DigiCert Global Root G</string></dict><dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>Apple Public Server ECC CA 1 - G</string></dict><dict><key>type</key><string>suffix</string><key>value</key><string>.apple.com</string></dict></array><array><dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>ISRG Root X</string></dict><dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>R</string></dict><dict><key>type</key><string>suffix</string><key>value</key><string>.apple.com</string></dict></array></array></dict></dict></dict></dict></plist>"#
    )
    let run = try await cnpin(["lint", plist])
    #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
    let errors = run.stdout.split(separator: "\n").filter { $0.contains(": error: ") }
    #expect(errors.count == 1, "\(run.stdout)")  // the ISRG Root X chain matches ISRG Root X1/X2
    #expect(
      errors.first?.contains(
        #"error: PinnedDomains["captive.apple.com"].chainSet[0][0]: root link exact "DigiCert Global Root G" matches none of the"#
      ) == true)
    #expect(
      errors.first?.hasSuffix(
        #"closest anchors: "DigiCert Global Root G2", "DigiCert Global Root G3"; prefixWithNumber "DigiCert Global Root G" would match them"#
      )
        == true, "\(run.stdout)")
    // A private PKI's root is in no system store: the output says how to lint one.
    #expect(
      run.stdout.hasSuffix(
        "hint: root links were checked against the system's trust store; for a private CA, lint against its roots with --cafile ROOTS.pem (or skip the check with --trust none)\n"
      ), "\(run.stdout)")
    let skipped = try await cnpin(["lint", plist, "--trust", "none"])
    #expect(skipped.status == 0, "\(skipped.stdout)")
    let both = try await cnpin(["lint", plist, "--trust", "none", "--cafile", plist])
    #expect(both.status == 2 && both.stderr.contains("not both"))
  }

  /// With --cafile the anchors are those of the file: root links and NSPinnedCAIdentities are
  /// checked against them.
  @Test func lintChecksAgainstTheAnchorsOfACAFile() async throws {
    let fixture = try Fixture()
    let unrelated = Data(repeating: 9, count: 32).base64EncodedString()
    let config = try fixture.directory.file(
      "Info.plist",
      #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CNPinningManager</key><dict><key>PinnedDomains</key><dict><key>api.test</key><dict><key>includesSubdomains</key><false/><key>chainSet</key><array><array><dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>Test Root X</string></dict><dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>R</string></dict><dict><key>type</key><string>exact</string><key>value</key><string>api.test</string></dict></array><array><dict><key>type</key><string>exact</string><key>value</key><string>Rogue Root</string></dict><dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>Rogue CA </string></dict><dict><key>type</key><string>exact</string><key>value</key><string>api.test</string></dict></array></array></dict></dict></dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>other.test</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\#(fixture.root.certificate.spkiSHA256Base64)</string></dict><dict><key>SPKI-SHA256-BASE64</key><string>\#(unrelated)</string></dict></array></dict></dict></dict></dict></plist>"#
    )
    let run = try await cnpin(["lint", config, "--cafile", fixture.caFile, "--json"])
    #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
    let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    let findings = (report?["findings"] as? [[String: String]]) ?? []
    let anchorFindings = findings.filter { $0["message"]?.contains("trust anchors") == true }
    #expect(
      anchorFindings.map { "\($0["severity"]!) \($0["path"]!)" } == [
        #"error PinnedDomains["api.test"].chainSet[1][0]"#,
        #"warning NSAppTransportSecurity.NSPinnedDomains["other.test"].NSPinnedCAIdentities[1]"#,
      ])
    #expect(
      anchorFindings.first?["message"]?.hasSuffix(#"closest anchors: "Rogue Root CA"; exact "Rogue Root CA" would match it"#)
        == true,
      "\(anchorFindings)")
    // Checked against the anchors given, the hint about the system's store would mislead.
    let plain = try await cnpin(["lint", config, "--cafile", fixture.caFile])
    #expect(plain.status == 2 && !plain.stdout.contains("hint:"), "\(plain.stdout)")
  }

  /// `--host` names the hosts an app talks to: a typo of a pinned domain fails open, so it is an
  /// error; a host not pinned at all is a warning; a pinned one (here by its parent's
  /// includesSubdomains entry) says nothing.
  @Test func lintGivenHostsNamesTheNearMissAndTheUnpinned() async throws {
    let directory = try TemporaryDirectory()
    let json =
      #"{"PinnedDomains": {"api.locla": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "Root CA"}, {"type": "exact", "value": "api.locla"}], [{"type": "exact", "value": "Other Root"}, {"type": "exact", "value": "api.locla"}]]}, "example.com": {"includesSubdomains": true, "chainSet": [[{"type": "exact", "value": "Root CA"}, {"type": "suffix", "value": ".example.com"}], [{"type": "exact", "value": "Other Root"}, {"type": "suffix", "value": ".example.com"}]]}}}"#
    let file = try directory.file("pins.json", json)
    let run = try await cnpin(
      ["lint", file, "--trust", "none", "--host", "api.local", "--host", "cdn.other.net", "--host", "www.example.com"])
    #expect(run.status == 2, "\(run.stdout)")
    #expect(
      run.stdout.contains(
        "error: api.local is not pinned, but the configuration pins api.locla: a typo in the configuration or the host?"),
      "\(run.stdout)")
    #expect(
      run.stdout.contains("warning: cdn.other.net is not pinned: its connections get the normal TLS checks only"), "\(run.stdout)"
    )
    #expect(!run.stdout.contains("www.example.com"), "\(run.stdout)")
    // A host that is not a host name (a URL, say) is an error, never quietly "not pinned".
    let url = try await cnpin(["lint", file, "--trust", "none", "--host", "https://api.locla/"])
    #expect(url.status == 2 && url.stdout.contains(#"error: "https://api.locla/" is not a host name"#), "\(url.stdout)")
    // Without --host the same file has no error.
    let plain = try await cnpin(["lint", file, "--trust", "none"])
    #expect(plain.status == 0, "\(plain.stdout)")
  }

  /// `--stamp` (what the CNPinLint build-tool plugin declares as its output) is written only when
  /// the file has no error, so a build that needs it stops at a broken configuration.
  @Test func lintWritesItsStampOnlyWithoutErrors() async throws {
    let directory = try TemporaryDirectory()
    let good = try directory.file(
      "good.json",
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "Root CA"}, {"type": "exact", "value": "api.example.com"}], [{"type": "exact", "value": "Other Root"}, {"type": "exact", "value": "api.example.com"}]]}}}"#
    )
    let bad = try directory.file(
      "bad.json",
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "exakt", "value": "Root CA"}]]}}}"#
    )
    let goodStamp = directory.url.appending(path: "good-stamp.swift").path
    let badStamp = directory.url.appending(path: "bad-stamp.swift").path
    let passed = try await cnpin(["lint", good, "--trust", "none", "--stamp", goodStamp])
    #expect(passed.status == 0, "\(passed.stdout)")
    #expect(try String(contentsOfFile: goodStamp, encoding: .utf8) == "// cnpin lint found no errors in good.json.\n")
    let failed = try await cnpin(["lint", bad, "--trust", "none", "--stamp", badStamp])
    #expect(failed.status == 2, "\(failed.stdout)")
    #expect(!FileManager.default.fileExists(atPath: badStamp))
  }

  @Test func lintWarningsExit0() async throws {
    let directory = try TemporaryDirectory()
    let json =
      #"{"PinnedDomains": {"example.com": {"includesSubdomains": true, "chainSet": [[{"type": "exact", "value": "Root CA 1"}, {"type": "prefix", "value": "R"}, {"type": "suffix", "value": "example.com"}], [{"value": "Other Root"}, {"type": "suffix", "value": ".example.com"}]]}, "api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "Root X"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "exact", "value": "api.example.com"}]]}}}"#
    let run = try await cnpin(["lint", try directory.file("pins.json", json), "--json", "--trust", "none"])
    #expect(run.status == 0, "\(run.stdout)")
    let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    let findings = (report?["findings"] as? [[String: String]]) ?? []
    let summary = findings.map { "\($0["severity"]!) \($0["path"]!)" }
    #expect(
      summary == [
        #"warning PinnedDomains["example.com"].chainSet[1][0]"#,  // no type: exact
        #"warning PinnedDomains["api.example.com"].chainSet"#,  // one chain, no backup
        #"warning PinnedDomains["api.example.com"].chainSet[0][2].type"#,  // exact on the leaf's CN
        #"warning PinnedDomains["example.com"].chainSet[0][0].type"#,  // exact on a CA's numbered name
        #"warning PinnedDomains["example.com"].chainSet[0][1].value"#,  // prefix too short
        #"warning PinnedDomains["example.com"].chainSet[0][2].value"#,  // suffix without a dot
        #"note PinnedDomains["api.example.com"].chainSet[0][1].value"#,  // one-letter prefixWithNumber
        #"note PinnedDomains["api.example.com"]"#,  // shadows example.com
        #"note PinnedDomains["example.com"].chainSet[1][1].type"#,  // suffix on the leaf's CN
      ])
    #expect(report?["errors"] as? Int == 0)
  }

  /// A system store that holds an intermediate is no reason to trust chains that stop there:
  /// libcurl switched on partial-chain trust in whatever store the TLS context held, so from the
  /// first handshake on any certificate in the system store was an anchor (200 here). Custom
  /// anchors are trusted as given, as designed.
  @Test func anIntermediateInTheSystemStoreIsNoAnchor() async throws {
    let fixture = try Fixture()
    let intermediate = try fixture.directory.file("intermediate.pem", fixture.genuineChain[1].pemEncoded)
    let url = "https://api.test:\(fixture.genuine.port)/"
    let otherPins = try fixture.configuration(["other.test"])
    let system = ["SSL_CERT_FILE": intermediate, "SSL_CERT_DIR": fixture.directory.url.appendingPathComponent("none").path]
    for _ in 0..<2 {
      let refused = try await cnpin(["get", url, "--config", otherPins] + fixture.resolve(fixture.genuine), environment: system)
      #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
      #expect(refused.stderr.contains("not trusted"), "\(refused.stderr)")
    }
    #expect(fixture.genuine.requests.isEmpty)
    let custom = try await cnpin(
      ["get", url, "--config", otherPins, "--cafile", intermediate] + fixture.resolve(fixture.genuine), environment: system)
    #expect(custom.status == 0, "\(custom.stderr)")
    #expect(custom.stdout == "hello")

    // CNTrustEvaluator (what `check --chain` verifies with) agrees with the session, both ways.
    let leafAndIntermediate = try fixture.directory.file(
      "served.pem", fixture.genuineChain.prefix(2).map(\.pemEncoded).joined())
    let twoLinks = try fixture.directory.file(
      "two-links.json",
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "R11"}, {"type": "exact", "value": "api.test"}]]}}}"#
    )
    let rehearsed = ["check", "--config", twoLinks, "--chain", leafAndIntermediate, "--host", "api.test"]
    let evaluatorRefuses = try await cnpin(rehearsed, environment: system)
    #expect(evaluatorRefuses.status == 1 && evaluatorRefuses.stdout.contains("not trusted"), "\(evaluatorRefuses.stdout)")
    let evaluatorAccepts = try await cnpin(rehearsed + ["--cafile", intermediate], environment: system)
    #expect(evaluatorAccepts.status == 0 && evaluatorAccepts.stdout.hasPrefix("PASS"), "\(evaluatorAccepts.stdout)")

    // The same for an HTTPS proxy's own certificate, against its trust.
    let proxyPKI = try TestPKI(root: "Proxy Root X1", intermediate: "Proxy R1", leaf: "proxy.test", dnsNames: ["proxy.test"])
    let proxy = try TestProxy.start(tlsIdentity: proxyPKI.leaf)
    let proxyIntermediate = try fixture.directory.file("proxy-intermediate.pem", proxyPKI.intermediate.certificate.pemEncoded)
    let proxySystem = system.merging(["SSL_CERT_FILE": proxyIntermediate]) { $1 }
    // The proxy resolves the origin's name itself, so the origin is reached as 127.0.0.1.
    let through = [
      "get", "https://127.0.0.1:\(fixture.genuine.port)/", "--config", otherPins, "--cafile", fixture.caFile, "-x",
      "https://127.0.0.1:\(proxy.port)",
    ]
    let refusedProxy = try await cnpin(through, environment: proxySystem)
    #expect(refusedProxy.status != 0, "\(refusedProxy.stdout) \(refusedProxy.stderr)")
    #expect(refusedProxy.stderr.contains("proxy"), "\(refusedProxy.stderr)")
    #expect(proxy.connectRequests().isEmpty)
    let trustedProxy = try await cnpin(through + ["--proxy-cacert", proxyIntermediate], environment: proxySystem)
    #expect(trustedProxy.status == 0 && trustedProxy.stdout == "hello", "\(trustedProxy.stderr)")
  }

  /// A configuration piped in (`cnpin lint <(…)`) is linted as a file is; it was refused with
  /// Foundation's "You don't have permission". A missing file says why, without the help.
  @Test func aPipedConfigurationIsLinted() async throws {
    let fixture = try Fixture()
    let file = try fixture.configuration()
    let piped = try await run("/bin/bash", ["-c", "'\(cnpinExecutable.path)' lint <(cat '\(file)') --trust none"])
    #expect(piped.status == 0, "\(piped.stdout)\(piped.stderr)")
    #expect(piped.stdout.contains("0 error(s)"), "\(piped.stdout)")
    let missing = try await cnpin(["lint", "/nonexistent.json"])
    #expect(missing.status == 2, "\(missing.stderr)")
    #expect(missing.stderr == "cnpin: cannot read /nonexistent.json: No such file or directory\n", "\(missing.stderr)")
  }
}
#endif
