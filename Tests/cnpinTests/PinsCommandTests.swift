// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin pins")
struct PinsCommandTests {
  @Test func namesAreTheVerifiedChainRootToLeaf() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      ["pins", "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "Test Root X1\nR11\napi.test\n")  // the root was not sent by the server
  }

  /// `pins` takes the URL a user has at hand, as curl would (issue 28: `https://host:8443/`
  /// became `https://[https://host:8443/]:443/` and a network error); other schemes and
  /// credentials are usage errors.
  @Test func anHTTPSURLNamesTheHostAndPort() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      ["pins", "https://api.test:\(fixture.genuine.port)/some/path?q=1", "--cafile", fixture.caFile]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "Test Root X1\nR11\napi.test\n")
    for (url, message) in [
      ("http://api.test/", "is not an https URL"), ("ftp://api.test/", "is not an https URL"),
      ("https://user:secret@api.test/", "carries credentials"), ("https:///nohost", "is not a URL with a host"),
    ] {
      let refused = try await cnpin(["pins", url, "--cafile", fixture.caFile])
      #expect(refused.status == 2, "\(url): \(refused.stderr)")
      #expect(refused.stderr.contains(message), "\(url): \(refused.stderr)")
    }
  }

  /// `--document` prints a whole configuration that loads as it is, and pins the host it was made
  /// from (issue 28, item 7: the formats printed an entry only).
  @Test func aWholeDocumentLoadsAndPinsTheHost() async throws {
    let fixture = try Fixture()
    for format in ["plist", "json"] {
      let run = try await cnpin(
        ["pins", "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile, "--format", format, "--document"]
          + fixture.resolve(fixture.genuine))
      #expect(run.status == 0, "\(format): \(run.stderr)")
      let manager = try CNPinningManager(document: CNPinningDocument(data: Data(run.stdout.utf8), source: "pins.\(format)"))
      #expect(manager.evaluate(host: "api.test", chain: fixture.genuineChain).allowsConnection, "\(format): \(run.stdout)")
    }
    let refused = try await cnpin(["pins", "api.test:1", "--format", "names", "--document"])
    #expect(refused.status == 2 && refused.stderr.hasPrefix("cnpin: --document needs --format plist or --format json"))
  }

  /// A certificate whose name carries terminal escapes (set the window title, erase the line,
  /// return the cursor) is printed with them escaped, in every format; none reaches the terminal.
  @Test func namesWithTerminalEscapesArePrintedEscaped() async throws {
    let fixture = try Fixture(intermediate: "R11\u{1b}]0;owned\u{07}\u{1b}[2K\rGood CA\u{202e}\u{200b}\u{e0041}")
    let base = ["pins", "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)
    for format in ["names", "spki", "swift", "json", "plist"] {
      let run = try await cnpin(base + ["--format", format])
      // A property list cannot hold the name: refused, saying so.
      #expect(run.status == (format == "plist" ? 1 : 0), "\(format): \(run.stderr)")
      if format == "plist" { #expect(run.stderr.contains("which a property list cannot hold: use --format json")) }
      let hidden: Set<UInt32> = [0x1B, 0x07, 0x0D, 0x202E, 0x200B, 0xE0041]
      #expect(!run.stderr.unicodeScalars.contains { hidden.contains($0.value) })
      let raw = run.stdout.unicodeScalars.filter { hidden.contains($0.value) }
      #expect(raw.isEmpty, "\(format) printed raw control characters: \(run.stdout.debugDescription)")
    }
    let names = try await cnpin(base)
    #expect(names.stdout == #"Test Root X1\#nR11\x1b]0;owned\x07\x1b[2K\x0dGood CA\u{202e}\u{200b}\u{e0041}\#napi.test\#n"#)
  }

  /// The seed's printPins.py example: the same chain, the same fragment for the CAs; the leaf by
  /// the name it is valid for rather than by its CN, which 2026's certificate profiles drop. R13
  /// is of Let's Encrypt's Generation X, which stopped issuing on 2026-05-13: the suggestion also
  /// carries Generation Y RSA, saying why in a comment (issue 64; before, it locked the host out
  /// at its next certificate).
  @Test func plistFormatMatchesTheSeed() async throws {
    let fixture = try Fixture(root: "ISRG Root X1", intermediate: "R13", leaf: "austinsoft.com")
    let base =
      ["pins", "austinsoft.com:\(fixture.genuine.port)", "--cafile", fixture.caFile]
      + fixture.resolve(fixture.genuine, "austinsoft.com")
    #expect(try await cnpin(base).stdout == "ISRG Root X1\nR13\naustinsoft.com\n")
    let plist = try await cnpin(base + ["--format", "plist"])
    #expect(plist.status == 0)
    #expect(
      plist.stdout == """
        <!-- Let's Encrypt Generation X RSA stopped issuing on 2026-05-13: the suggestion also carries Let's Encrypt Generation Y RSA (current since 2026-05-13) in all its store shapes, so that the CA's next certificates pass (CA catalogue 2026.12.06, facts of 2026-12-06) -->
        \t<key>austinsoft.com</key>
        \t<dict>
        \t\t<key>includesSubdomains</key>
        \t\t<false/>
        \t\t<key>chainSet</key>
        \t\t<array>
        \t\t\t<array>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>prefixWithNumber</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>ISRG Root X</string>
        \t\t\t\t</dict>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>prefixWithNumber</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>R</string>
        \t\t\t\t</dict>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>subjectAltName</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>austinsoft.com</string>
        \t\t\t\t</dict>
        \t\t\t</array>
        \t\t\t<array>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>prefixWithNumber</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>ISRG Root X</string>
        \t\t\t\t</dict>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>exact</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>Root YR</string>
        \t\t\t\t\t<key>mayBeAnchor</key>
        \t\t\t\t\t<true/>
        \t\t\t\t</dict>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>prefixWithNumber</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>YR</string>
        \t\t\t\t</dict>
        \t\t\t\t<dict>
        \t\t\t\t\t<key>type</key>
        \t\t\t\t\t<string>subjectAltName</string>
        \t\t\t\t\t<key>value</key>
        \t\t\t\t\t<string>austinsoft.com</string>
        \t\t\t\t</dict>
        \t\t\t</array>
        \t\t</array>
        \t</dict>

        """)
    let subdomains = try await cnpin(base + ["--format", "plist", "--includes-subdomains"])
    #expect(subdomains.stdout.contains("<key>includesSubdomains</key>\n\t\t<true/>"))
  }

  @Test func otherFormats() async throws {
    let fixture = try Fixture()
    let base = ["pins", "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)

    let json = try await cnpin(base + ["--format", "json"])
    #expect(json.status == 0)
    // The JSON fragment loads as a configuration once wrapped in PinnedDomains.
    let document = try CNPinningDocument(data: Data(("{\"PinnedDomains\": {" + json.stdout + "}}").utf8))
    #expect(document.entries.first?.configuration.chains.first?.links.map(\.value) == ["Test Root X", "R", "api.test"])

    let swift = try await cnpin(base + ["--format", "swift"])
    #expect(
      swift.stdout == """
        CNChain([  // written root → leaf
          CNChainLink(.prefixWithNumber, "Test Root X"),  // Test Root X1
          CNChainLink(.prefixWithNumber, "R"),  // R11
          CNChainLink(.subjectAltName, "api.test"),  // the leaf, by the names it is valid for
        ])

        """)

    let spki = try await cnpin(base + ["--format", "spki"])
    #expect(spki.stdout.split(separator: "\n").first == "\(fixture.root.certificate.spkiSHA256Base64)  Test Root X1")
    #expect(spki.stdout.split(separator: "\n").count == 3)

    let report = try await cnpin(base + ["--json"])
    let object = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
    #expect(object?["verified"] as? Bool == true)
    #expect(
      (object?["verifiedChain"] as? [[String: Any]])?.map { $0["commonName"] as? String } == ["Test Root X1", "R11", "api.test"])
    #expect((object?["presentedChain"] as? [Any])?.count == 2)
  }

  @Test func anUnverifiableChainPrintsWhatWasPresentedAndExits1() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(["pins", "api.test:\(fixture.genuine.port)"] + fixture.resolve(fixture.genuine))  // system trust
    #expect(run.status == 1)
    #expect(
      run.stdout.contains(
        "The server presented (leaf first, as sent):\n  0: api.test  (issued by R11)\n  1: R11  (issued by Test Root X1)"))
    #expect(run.stderr.contains("the certificate chain is not trusted"))
  }

  @Test func ipv6Works() async throws {
    let fixture = try Fixture(address: .ipv6Loopback)
    let run = try await cnpin(["pins", "[::1]:\(fixture.genuine.port)", "--cafile", fixture.caFile])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "Test Root X1\nR11\napi.test\n")
  }

  @Test func unreachablePortIsANetworkError() async throws {
    let fixture = try Fixture()
    let run = try await withRefusedPort { port in
      try await cnpin(["pins", "127.0.0.1:\(port)", "--cafile", fixture.caFile, "--timeout", "5"])
    }
    #expect(run.status == 3)
    #expect(run.stderr.contains("connection refused"))
  }

  @Test func aServerThatIsNotTLSIsANetworkError() async throws {
    let identity = try TestIdentity.root("x").issueLeaf("api.test")
    var setup = LocalTLSServer.Configuration(identity: identity)
    setup.behavior = .notTLS
    let server = try LocalTLSServer.start(setup)
    let run = try await cnpin(["pins", "127.0.0.1:\(server.port)", "--timeout", "5"])
    #expect(run.status == 3)
    #expect(run.stderr.contains("TLS handshake failed"))
  }

  /// `--add-to` a file that does not exist creates it (JSON, or a property list for a `.plist`
  /// name) instead of refusing it; the "one shape" note is said only when the file then pins the
  /// host with that one chain, not right after a second chain was added (as before).
  @Test func addToCreatesAFileAndSaysOneShapeOnlyWhenItIsSo() async throws {
    let directory = try TemporaryDirectory()
    let pki = try TestPKI()
    let chain = try directory.file("chain.pem", pki.leaf.chain.dropLast().map(\.pemEncoded).joined())
    let anchors = try directory.file("anchors.pem", pki.root.certificate.pemEncoded)
    for (name, format) in [("new.json", "JSON"), ("new.plist", "property list")] {
      let path = directory.url.appendingPathComponent(name).path
      let run = try await cnpin(["pins", "--chain", chain, "--host", "api.test", "--cafile", anchors, "--add-to", path])
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.contains("created \(path) (\(format)) pinning api.test to 1 chain\n"), "\(run.stderr)")
      #expect(run.stderr.contains("note: one shape"), "\(run.stderr)")
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      #expect(data.first == UInt8(ascii: format == "JSON" ? "{" : "<"))
      let document = try CNPinningDocument(data: data)
      #expect(document.entries.map(\.host) == ["api.test"])
      #expect(
        document.entries.first?.configuration.chains.map(\.description) == [
          #"[prefixWithNumber "Test Root X" → prefixWithNumber "R" → subjectAltName "api.test"]"#
        ])
    }
    let next = try TestPKI(root: "Next Root", intermediate: "Next CA", leaf: "api.test", dnsNames: ["api.test"])
    let nextChain = try directory.file("next.pem", next.leaf.chain.dropLast().map(\.pemEncoded).joined())
    let nextAnchors = try directory.file("next-anchors.pem", next.root.certificate.pemEncoded)
    let json = directory.url.appendingPathComponent("new.json").path
    let second = try await cnpin(["pins", "--chain", nextChain, "--host", "api.test", "--cafile", nextAnchors, "--add-to", json])
    #expect(second.status == 0 && second.stderr.contains("added chain 1 to api.test in \(json)"), "\(second.stderr)")
    #expect(!second.stderr.contains("one shape"), "\(second.stderr)")
  }

  /// A `--chain` whose root is not trusted (yet) names `--future-anchors`, the option a CA's new
  /// hierarchy needs; a chain that fails for another reason does not.
  @Test func anUntrustedChainNamesFutureAnchors() async throws {
    let directory = try TemporaryDirectory()
    let pki = try TestPKI()
    let chain = try directory.file("chain.pem", pki.leaf.chain.dropLast().map(\.pemEncoded).joined())
    let other = try directory.file("other.pem", try TestIdentity.root("Other Root").certificate.pemEncoded)
    let untrusted = try await cnpin(["pins", "--chain", chain, "--host", "api.test", "--cafile", other])
    #expect(untrusted.status == 1)
    #expect(
      untrusted.stderr.contains(
        "if its root is not in trust stores yet (a CA's new hierarchy), give the root with --future-anchors ROOT.pem"),
      "\(untrusted.stderr)")
    let anchors = try directory.file("anchors.pem", pki.root.certificate.pemEncoded)
    let wrongHost = try await cnpin(["pins", "--chain", chain, "--host", "elsewhere.test", "--cafile", anchors])
    #expect(wrongHost.status == 1 && !wrongHost.stderr.contains("--future-anchors"), "\(wrongHost.stderr)")
  }
}
#endif
