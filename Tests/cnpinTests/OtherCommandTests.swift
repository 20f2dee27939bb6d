// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin convert, usage, help, version, and cnpin-demo")
struct OtherCommandTests {
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
    (
      ["convert", "x.json"],
      "cnpin: missing --to plist|json|nspinneddomains|nsc|okhttp|trustkit, or --from trustkit|nspinneddomains|nsc|okhttp"
    ),
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
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "cnpin \(CNPinningVersion.current)")
    // Then the libcurl the process loaded, and whether a known multi defect touches the session's options.
    #expect(lines.count >= 3 && lines[1].hasPrefix("libcurl ") && lines.last == "", "\(run.stdout)")
    #expect(
      lines[1].hasSuffix(": no known difference touches the options CNPinnedSession sets")
        || lines[1].hasSuffix(": what touches the options CNPinnedSession sets:"), "\(run.stdout)")
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
