// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin check, lint, get, convert, and cnpin-demo")
struct OtherCommandTests {
  @Test func checkPasses() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      ["check", "--config", try fixture.configuration(), "--cafile", fixture.caFile, "api.test:\(fixture.genuine.port)"]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(
      run.stdout.hasPrefix(
        "PASS       api.test:\(fixture.genuine.port)  chain 0 of api.test matches [Test Root X1 → R11 → api.test]"))
  }

  @Test func checkFailsForARogueChainAndForUnpinnedHosts() async throws {
    let fixture = try Fixture()
    let arguments =
      [
        "check", "--config", try fixture.configuration(), "--cafile", fixture.caFile, "api.test:\(fixture.rogue.port)",
        "other.test:\(fixture.genuine.port)", "--json",
      ]
      + fixture.resolve(fixture.rogue) + fixture.resolve(fixture.genuine, "other.test")
    let run = try await cnpin(arguments)
    #expect(run.status == 1)
    let results = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: String]]
    #expect(results?.map { $0["status"] } == ["FAIL", "NOT PINNED"])
    #expect(results?.first?["detail"]?.contains("Pin mismatch for api.test") == true)
    #expect(fixture.rogue.requests.isEmpty)
  }

  @Test func checkWithoutHostsChecksEveryPinnedHostAndReportsNetworkErrors() async throws {
    let fixture = try Fixture()
    // api.test is sent to a closed port: a network error only, exit 3.
    let run = try await cnpin([
      "check", "--config", try fixture.configuration(), "--cafile", fixture.caFile, "--resolve", "api.test:443:127.0.0.1",
      "--timeout", "5",
    ])
    #expect(run.status == 3, "\(run.stdout)")
    #expect(run.stdout.hasPrefix("ERROR      api.test:443"))
  }

  @Test func checkRefusesABadConfiguration() async throws {
    let directory = try TemporaryDirectory()
    let run = try await cnpin(["check", "--config", try directory.file("bad.json", #"{"PinnedDomains": {}}"#)])
    #expect(run.status == 2)
    #expect(run.stderr.contains("PinnedDomains is empty"))
  }

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

  /// `-H` fields go out as given: in order, each repeat sent (curl sends both `X-A`s); they used
  /// to go out sorted by name with a repeated name's first value dropped. A Content-Length that
  /// is not a plain decimal, or that a GET without a body contradicts, is refused before anything
  /// is sent.
  @Test func headerFieldsGoOutAsWritten() async throws {
    let fixture = try Fixture()
    let base = ["get", "--config", try fixture.configuration(), "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)
    let url = "https://api.test:\(fixture.genuine.port)/"
    let run = try await cnpin(base + [url, "-H", "Zeta: 1", "-H", "Alpha: 2", "-H", "X-A: 1", "-H", "X-A: 2"])
    #expect(run.status == 0, "\(run.stderr)")
    let sent = try #require(fixture.genuine.requests.last).headers.filter {
      ["zeta", "alpha", "x-a"].contains($0.name.lowercased())
    }
    #expect(sent.map { "\($0.name): \($0.value)" } == ["Zeta: 1", "Alpha: 2", "X-A: 1", "X-A: 2"])
    let requestsBefore = fixture.genuine.requests.count
    for length in ["+10", "5", "1 0", "-1"] {
      let refused = try await cnpin(base + [url, "-H", "Content-Length: \(length)"])
      #expect(refused.status == 2, "Content-Length: \(length): \(refused.stderr)")
      #expect(refused.stderr.contains("Content-Length"), "\(refused.stderr)")
    }
    #expect(fixture.genuine.requests.count == requestsBefore)
  }

  /// curl's spellings where the meaning is the same (issue 28, item 6): --cacert, -i, -s,
  /// --max-redirs, -L; -k is refused with the reason.
  @Test func curlSpellingsWork() async throws {
    let fixture = try Fixture(genuineHandler: { request in
      request.target == "/moved" ? .redirect(to: "/") : .text("hello")
    })
    let config = try fixture.configuration()
    let base = ["--config", config, "--cacert", fixture.caFile] + fixture.resolve(fixture.genuine)
    let included = try await cnpin(["get", "-i", "-s", "-L", "https://api.test:\(fixture.genuine.port)/"] + base)
    #expect(included.status == 0, "\(included.stderr)")
    #expect(included.stdout.hasPrefix("HTTP/1.1 200\n"), "\(included.stdout)")
    #expect(included.stdout.contains("Content-Type: text/plain; charset=utf-8\n"))
    #expect(included.stdout.hasSuffix("\n\nhello"), "\(included.stdout.debugDescription)")
    let unfollowed = try await cnpin(["get", "-i", "--max-redirs", "0", "https://api.test:\(fixture.genuine.port)/moved"] + base)
    #expect(unfollowed.stdout.hasPrefix("HTTP/1.1 302\n"), "\(unfollowed.stdout)\(unfollowed.stderr)")
    let followed = try await cnpin(["get", "--location", "https://api.test:\(fixture.genuine.port)/moved"] + base)
    #expect(followed.stdout == "hello", "\(followed.stderr)")
    let pins = try await cnpin(
      ["pins", "api.test:\(fixture.genuine.port)", "--cacert", fixture.caFile] + fixture.resolve(fixture.genuine))
    #expect(pins.stdout == "Test Root X1\nR11\napi.test\n", "\(pins.stderr)")
    for insecure in ["-k", "--insecure"] {
      let refused = try await cnpin(["get", insecure, "https://api.test/"] + base)
      #expect(refused.status == 2)
      #expect(refused.stderr.hasPrefix("cnpin: -k/--insecure is refused: cnpin never turns certificate verification off"))
    }
    let badLimit = try await cnpin(["get", "--max-redirs", "-3", "https://api.test/"] + base)
    #expect(badLimit.status == 2 && badLimit.stderr.hasPrefix("cnpin: --max-redirs needs a number from 0 to 1000"))
  }

  /// With `--json`, a command that fails prints one JSON document saying why, so that a script
  /// never parses nothing (issue 28, item 6: `get --json` and `policy verify --json` printed
  /// nothing on failure).
  @Test func everyFailureWithJSONPrintsOneJSONDocument() async throws {
    let fixture = try Fixture()
    let config = try fixture.configuration()
    let token = try fixture.directory.file("bad.jws", "not-a-token")
    let key = try fixture.directory.file("k.pem", try TestPrivateKey.shared(.p256, slot: 60).publicKeyPEM)
    let runs: [[String]] = [
      ["get", "--json", "--config", config, "--cafile", fixture.caFile, "https://api.test:\(fixture.rogue.port)/"]
        + fixture.resolve(fixture.rogue),
      ["get", "--json", "--config", config, "ftp://api.test/"],
      ["policy", "verify", "--json", "--key", key, token],
      ["pins", "--json", "--cafile", fixture.caFile, "127.0.0.1:1"],
      ["lint", "--json", "/nonexistent/pins.json"],
    ]
    for arguments in runs {
      let run = try await cnpin(arguments)
      #expect(run.status != 0, "\(arguments)")
      let document = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
      #expect(document != nil, "\(arguments): stdout is not one JSON object: \(run.stdout.debugDescription)")
      #expect(document?["error"] is String, "\(arguments): \(run.stdout)")
    }
  }

  /// A configuration that pins a typo of the host (`api.tset`) leaves it unpinned; `get -v` says
  /// which pinned domain it nearly is (issue 28, item 7).
  @Test func getNamesThePinnedDomainAnUnpinnedHostNearlyIs() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      [
        "get", "-v", "--config", try fixture.configuration(["api.tset"]), "--cafile", fixture.caFile,
        "https://api.test:\(fixture.genuine.port)/",
      ] + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stderr.contains("pins: host not pinned (normal TLS validation only); the configuration pins api.tset: a typo?"),
      "\(run.stderr)")
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

  /// curl's proxy options, and the environment's proxy when none is given, through tinyproxy.
  @Test func getGoesThroughTheProxyOfTheOptionsOrTheEnvironment() async throws {
    let fixture = try Fixture()
    let proxy = try TestProxy.start()
    let config = try fixture.configuration(["127.0.0.1"])
    let url = "https://127.0.0.1:\(fixture.genuine.port)/"
    let target = "127.0.0.1:\(fixture.genuine.port)"

    let explicit = try await cnpin(["get", url, "--config", config, "--cafile", fixture.caFile, "-x", "127.0.0.1:\(proxy.port)"])
    #expect(explicit.status == 0 && explicit.stdout == "hello", "\(explicit.stderr)")
    #expect(proxy.connectRequests() == [target])

    let environment = ["https_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": ""]
    let fromEnvironment = try await cnpin(["get", url, "--config", config, "--cafile", fixture.caFile], environment: environment)
    #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
    #expect(proxy.connectRequests() == [target, target])

    let bypassed = try await cnpin(
      ["get", url, "--config", config, "--cafile", fixture.caFile, "--noproxy", "localhost,127.0.0.1"], environment: environment)
    #expect(bypassed.status == 0, "\(bypassed.stderr)")
    #expect(proxy.connectRequests().count == 2)

    let socks = try await cnpin(["get", url, "--config", config, "-x", "socks5://127.0.0.1:1080"])
    #expect(socks.status == 2 && socks.stderr.contains("socks5:// proxies are not supported"), "\(socks.stderr)")
    let broken = try await cnpin(["get", url, "--config", config], environment: ["https_proxy": "ftp://proxy"])
    #expect(broken.status == 2 && broken.stderr.contains("https_proxy: ftp:// proxies are not supported"), "\(broken.stderr)")
  }

  /// `-o` streams to the file; the progress meter shows only on a terminal (a pseudo-terminal
  /// from util-linux's `script` here), as curl's does.
  @Test func downloadsShowProgressOnlyOnATerminal() async throws {
    let body = String(repeating: "0123456789abcdef", count: 200_000)  // 3.1 MiB
    let fixture = try Fixture(genuineHandler: { _ in .text(body) })
    let output = fixture.directory.url.appendingPathComponent("body.bin").path
    let arguments =
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-o", output,
      ]
      + fixture.resolve(fixture.genuine)
    let piped = try await cnpin(arguments)
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stderr.isEmpty && piped.stdout.isEmpty)
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == body.utf8.count)

    try FileManager.default.removeItem(atPath: output)
    let command = ([cnpinExecutable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let terminal = try await run("/usr/bin/script", ["-qec", command, "/dev/null"])
    #expect(terminal.status == 0, "\(terminal.stdout)")
    #expect(terminal.stdout.contains("3.1 MiB of 3.1 MiB  100%"), "\(terminal.stdout)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == body.utf8.count)
  }

  /// `-o` never deletes: a directory (`.` included) is refused before anything is fetched, an
  /// existing file is replaced only with `--clobber`, and the body arrives whole through a
  /// private file that is renamed (or linked) into place, leaving nothing else behind. (Before,
  /// `-o DIR` removed DIR and everything in it.)
  @Test func outputNeverDeletesAndReplacesAFileOnlyWhenAsked() async throws {
    let fixture = try Fixture(genuineHandler: { _ in .text("fresh") })
    let base =
      ["get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile]
      + fixture.resolve(fixture.genuine)
    let directory = try TemporaryDirectory()
    let keep = try directory.file("keep.txt", "precious")
    let intoDirectory = try await cnpin(base + ["-o", directory.url.path])
    #expect(intoDirectory.status == 2)
    #expect(intoDirectory.stderr.contains("is a directory; name a file"), "\(intoDirectory.stderr)")
    let intoDot = try await run(
      "/bin/sh",
      [
        "-c",
        "cd '\(directory.url.path)' && exec '\(cnpinExecutable.path)' \(base.map { "'\($0)'" }.joined(separator: " ")) -o .",
      ])
    #expect(intoDot.status == 2)
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "precious")
    #expect(fixture.genuine.requests.isEmpty, "refused before anything was fetched")

    let refused = try await cnpin(base + ["-o", keep])
    #expect(refused.status == 2 && refused.stderr.contains("exists; pass --clobber to replace it"), "\(refused.stderr)")
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "precious")
    let replaced = try await cnpin(base + ["-o", keep, "--clobber"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "fresh")
    let fresh = directory.url.appendingPathComponent("new.txt").path
    #expect(try await cnpin(base + ["-o", fresh]).status == 0)
    #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "fresh")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["keep.txt", "new.txt"])
  }

  /// `-o` places the body with the mode a shell gives a new file (0666 less the umask, set on
  /// the open file, never by path), whether the download is linked beside the target (same file
  /// system) or copied there (the temporary folder on tmpfs), and leaves nothing else behind.
  @Test(arguments: [false, true])
  func outputIsPlacedByDescriptorOnEitherFileSystem(_ temporaryOnTmpfs: Bool) async throws {
    let fixture = try Fixture(genuineHandler: { _ in .text("placed") })
    let directory = try TemporaryDirectory()
    let output = directory.url.appendingPathComponent("body.txt").path
    let temporary = try TemporaryDirectory()
    let shm = URL(fileURLWithPath: "/dev/shm/cnpin-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: shm) }
    let run = try await run(
      "/bin/sh",
      [
        "-c",
        "umask 027 && exec '\(cnpinExecutable.path)' "
          + ([
            "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile",
            fixture.caFile,
          ]
          + fixture.resolve(fixture.genuine) + ["-o", output]).map { "'\($0)'" }.joined(separator: " "),
      ], environment: ["TMPDIR": temporaryOnTmpfs ? shm.path : temporary.url.path])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "placed")
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int)
    #expect(mode == 0o640, "mode \(String(mode, radix: 8))")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["body.txt"])
  }

  /// A server's header with terminal escapes (erase the line, set the window title) is printed
  /// with them escaped by `-v`; the body, to a pipe, stays as sent.
  @Test func verboseEscapesWhatTheServerSent() async throws {
    let hostile = "a\u{1b}[2K\rb\u{1b}]0;owned\u{07}c"
    let response = LocalTLSServer.Response(headers: [.init("X-Note", hostile)], body: Data("\u{1b}[31mred".utf8))
    let fixture = try Fixture(genuineHandler: { _ in response })
    let run = try await cnpin(
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-v",
      ]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains(#"< X-Note: a\x1b[2K\x0db\x1b]0;owned\x07c"#), "\(run.stderr)")
    #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x0D })
    #expect(run.stdout == "\u{1b}[31mred")
  }

  @Test func verboseSaysHowTheConnectionWasMade() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-v",
      ]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("* connected to api.test:\(fixture.genuine.port) (new connection, TLS 1.3"), "\(run.stderr)")
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

  @Test func getFetchesThroughThePins() async throws {
    let fixture = try Fixture(genuineHandler: { request in
      .text(
        "\(request.method) \(request.target) \(request.header("X-Test") ?? "-") \(String(decoding: request.body, as: UTF8.self))")
    })
    let url = "https://api.test:\(fixture.genuine.port)/echo"
    let base =
      ["get", url, "--config", try fixture.configuration(), "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)
    let plain = try await cnpin(base)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stdout == "GET /echo - ")

    let verbose = try await cnpin(base + ["-X", "PUT", "-H", "X-Test: yes", "-d", "body", "-v"])
    #expect(verbose.stdout == "PUT /echo yes body")
    #expect(verbose.stderr.contains("*   verified chain (root → leaf): Test Root X1 → R11 → api.test"))
    #expect(verbose.stderr.contains("*   pins: accepted by chain 0 of api.test"))
    #expect(verbose.stderr.contains("< 200"))

    let directory = try TemporaryDirectory()
    let output = directory.url.appendingPathComponent("body.txt").path
    let toFile = try await cnpin(base + ["-o", output, "--json"])
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "GET /echo - ")
    let report = try JSONSerialization.jsonObject(with: Data(toFile.stdout.utf8)) as? [String: Any]
    #expect(report?["status"] as? Int == 200)
    #expect(report?["bodyBytes"] as? Int == 12)
  }

  /// A process that downloads leaves nothing in the temporary folder once it exits: the file is
  /// moved to `-o`, and the session's private download directory goes with the process.
  /// A download whose redirects never end is discarded hop by hop, and a temporary folder that
  /// cannot be written is a set-up failure that says so.
  @Test func aDownloadLeavesNothingInTheTemporaryFolder() async throws {
    let fixture = try Fixture(genuineHandler: { request in
      request.target == "/loop" ? .redirect(to: "/loop") : .text("hello")
    })
    let temporary = try TemporaryDirectory()
    let output = fixture.directory.url.appendingPathComponent("body.txt").path
    func get(_ path: String, _ extra: [String] = [], temporaryFolder: String) async throws -> Run {
      try await cnpin(
        [
          "get", "https://api.test:\(fixture.genuine.port)\(path)", "--config", try fixture.configuration(), "--cafile",
          fixture.caFile, "-o", output,
        ] + extra + fixture.resolve(fixture.genuine), environment: ["TMPDIR": temporaryFolder])
    }
    let fetched = try await get("/", temporaryFolder: temporary.url.path)
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "hello")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == [])

    let looping = try await get("/loop", ["-L", "--clobber"], temporaryFolder: temporary.url.path)
    #expect(looping.status == 3)
    #expect(looping.stderr.contains("redirects"), "\(looping.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == [])

    let missing = temporary.url.appendingPathComponent("missing").path
    let unwritable = try await get("/", ["--clobber"], temporaryFolder: missing)
    #expect(unwritable.status == 3)
    #expect(
      unwritable.stderr.contains("the session cannot make requests: cannot create a private directory"), "\(unwritable.stderr)")
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

  @Test func getRefusesTheRogueServer() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      [
        "get", "https://api.test:\(fixture.rogue.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-v",
      ] + fixture.resolve(fixture.rogue))
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("Pin mismatch for api.test"))
    #expect(fixture.rogue.requests.isEmpty)
  }

  @Test func convertRoundTrips() async throws {
    let directory = try TemporaryDirectory()
    let json =
      #"{"PinnedDomains": {"b.test": {"includesSubdomains": true, "chainSet": [[{"value": "Root & <Co>"}, {"type": "suffix", "value": ".b.test"}]]}, "a.test": {"includesSubdomains": false, "chainSet": [[{"type": "prefix", "value": "Ünïcode \"quoted\""}], [{"type": "prefixWithNumber", "value": "R"}]]}}}"#
    let source = try directory.file("pins.json", json)
    let plist = try await cnpin(["convert", source, "--to", "plist"])
    #expect(plist.status == 0)
    #expect(plist.stderr.contains("warning"))  // the link without a type
    let plistFile = try directory.file("pins.plist", plist.stdout)
    let back = try await cnpin(["convert", plistFile, "--to", "json"])
    let original = try CNPinningDocument(data: Data(json.utf8))
    let converted = try CNPinningDocument(data: Data(plist.stdout.utf8))
    let convertedBack = try CNPinningDocument(data: Data(back.stdout.utf8))
    // The same hosts and pins; the written files spell out the type the original left out, so
    // only the original warns.
    #expect(converted.entries == original.entries)
    #expect(convertedBack.entries == original.entries)
    #expect(original.warnings.count == 1)
    #expect(converted.warnings.isEmpty && convertedBack.warnings.isEmpty)
    // Foundation reads the written property list too.
    #expect(try PropertyListSerialization.propertyList(from: Data(plist.stdout.utf8), format: nil) is [String: Any])
  }

  @Test func demoRunsOffline() async throws {
    let demo = cnpinExecutable.deletingLastPathComponent().appendingPathComponent("cnpin-demo")
    let run = try await run(demo.path, [])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("ACCEPTED: HTTP 200"))
    #expect(run.stdout.contains("REJECTED before any request was sent: Pin mismatch for api.demo.test"))
    #expect(run.stdout.contains("ACCEPTED: HTTP 200: hello from the genuine server (/urlsession)"))
    #expect(run.stdout.contains("REJECTED: URLError.serverCertificateUntrusted, because: Pin mismatch for api.demo.test"))
    #expect(run.stdout.contains("warning: "))
    // What CN pins cannot stop, and what does (issue 28, item 4).
    #expect(run.stdout.contains("ACCEPTED by the CN chain alone: the names match, and CN pins cannot tell the keys apart"))
    #expect(run.stdout.contains("REJECTED with the genuine root's SPKI pin added: the copycat's root has another key"))
  }

  @Test(arguments: [
    (["pins", "--format"], "cnpin: --format needs a value"),
    (["pins", "a.test", "--bogus"], "cnpin: unknown option --bogus"),
    (["pins"], "cnpin: missing HOST[:PORT] (or --chain PEM --host HOST)"),
    (["pins", "a.test", "b.test"], "cnpin: unexpected argument \"b.test\""),
    (["pins", "a.test:70000"], "cnpin: port 70000 is out of range (1–65535)"),
    (
      ["pins", "0x7f000001:8443"],
      "cnpin: \"0x7f000001\" is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"
    ),
    (
      ["pins", "https://127.0.0.0x1/"],
      "cnpin: \"127.0.0.0x1\" is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"
    ),
    (["pins", "a.test", "--format", "xml"], "cnpin: --format must be one of names, plist, json, swift, spki, pem, not \"xml\""),
    (["pins", "a.test", "--timeout", "-1"], "cnpin: --timeout needs a number of seconds between 0 and 86400, not \"-1\""),
    (["pins", "a.test", "--timeout", "1e300"], "cnpin: --timeout needs a number of seconds between 0 and 86400, not \"1e300\""),
    (
      ["pins", "a.test", "--resolve", "nonsense"],
      "cnpin: --resolve: invalid argument: \"nonsense\" is not HOST:PORT:ADDRESS (for example api.example.com:443:127.0.0.1)"
    ),
    (["check"], "cnpin: missing --config FILE"),
    (["convert", "x.json"], "cnpin: missing --to plist|json"),
    (["get", "ftp://x", "--config", "c"], "cnpin: \"ftp://x\" is not an http or https URL"),
    (["frobnicate"], "cnpin: unknown command \"frobnicate\""),
    (["chek", "--config", "c"], "cnpin: unknown command \"chek\" (did you mean \"check\"?)"),
    (["verison"], "cnpin: unknown command \"verison\" (did you mean \"version\"?)"),
    ([], "cnpin: missing COMMAND"),
  ])
  /// One line saying what is wrong, then the help of the command the user ran (issue 28: every
  /// usage error printed the overview), or the overview when there is no such command.
  func usageErrorsExit2WithOneLineAndTheCommandsHelp(_ arguments: [String], _ message: String) async throws {
    let run = try await cnpin(arguments)
    #expect(run.status == 2)
    #expect(run.stderr.hasPrefix(message + "\n"), "\(run.stderr)")
    let known = ["pins", "check", "lint", "get", "convert", "policy"]
    let help =
      arguments.first.map { known.contains($0) ? "Usage: cnpin \($0)" : "Usage: cnpin COMMAND" } ?? "Usage: cnpin COMMAND"
    #expect(run.stderr.contains("\n" + help), "\(run.stderr)")
  }

  @Test(arguments: ["pins", "check", "lint", "get", "convert"])
  func everyCommandHasHelpWithExamples(_ command: String) async throws {
    let run = try await cnpin([command, "--help"])
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("Usage: cnpin \(command)"))
    #expect(run.stdout.contains("Example"))
  }

  /// `cnpin --version` (and `cnpin version`) print the package's version, which CHANGELOG.md's
  /// newest release heading names too.
  @Test(arguments: ["--version", "version"])
  func versionIsPrintedAndMatchesTheChangelog(_ word: String) async throws {
    let run = try await cnpin([word])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "cnpin \(CNPinningVersion.current)\n")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
    #expect(newest?.hasPrefix("## [\(CNPinningVersion.current)]") == true, "\(String(describing: newest))")
  }

  /// The shipped tool links no test code (the demonstration, which needs the test kit's servers,
  /// is its own executable): no symbol of CNPinningTestKit is in the binary.
  @Test func theShippedToolDoesNotCarryTheTestKit() throws {
    let marker = Data("CNPinningTestKit".utf8)
    let tool = try Data(contentsOf: cnpinExecutable)
    let demo = try Data(contentsOf: cnpinExecutable.deletingLastPathComponent().appendingPathComponent("cnpin-demo"))
    #expect(tool.range(of: marker) == nil)
    #expect(demo.range(of: marker) != nil)  // the check can see the kit where it is linked
  }
}
#endif
