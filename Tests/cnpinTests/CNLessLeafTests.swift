// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// A host whose certificate has no Common Name (Let's Encrypt's `tlsserver` and `shortlived`
/// profiles), by DNS name and by IP address, pinned from `cnpin pins` to `cnpin get`; a CA change
/// rehearsed offline from its chain file into an existing configuration, without JSON typed by hand.
@Suite("cnpin and CN-less leaves")
struct CNLessLeafTests {
  struct Host {
    let pki: LetsEncryptPKI
    let server: LocalTLSServer
    let directory: TemporaryDirectory
    let cafile: String
    let host: String

    init(_ host: String, profile: LetsEncryptPKI.LeafProfile, store: LetsEncryptPKI.Store = .generationX) throws {
      pki = try LetsEncryptPKI()
      let (identity, chain) = try pki.server(host, .generationYECDSA, profile: profile)
      var setup = LocalTLSServer.Configuration(identity: identity)
      setup.chain = chain
      server = try LocalTLSServer.start(setup)
      directory = try TemporaryDirectory()
      cafile = try directory.file("anchors.pem", pki.anchors(store).map(\.pemEncoded).joined())
      self.host = host
    }

    var authority: String { host.contains(":") ? "[\(host)]:\(server.port)" : "\(host):\(server.port)" }
    var network: [String] {
      host.first!.isNumber || host.contains(":")
        ? ["--cafile", cafile] : ["--cafile", cafile, "--resolve", "\(host):\(server.port):127.0.0.1"]
    }
  }

  @Test(arguments: [("api.test", LetsEncryptPKI.LeafProfile.tlsServer), ("127.0.0.1", .shortLived)])
  func aCNLessHostIsPinnedFromPinsToGet(_ name: String, _ profile: LetsEncryptPKI.LeafProfile) async throws {
    let host = try Host(name, profile: profile)
    let names = try await cnpin(["pins", host.authority] + host.network)
    #expect(names.status == 0, "\(names.stderr)")
    // Printed by the names it is valid for (issue 64, item 6: it was "(no usable CN: …)").
    #expect(
      names.stdout.hasSuffix("(no CN; SAN \(name == "api.test" ? "api.test, 127.0.0.1, ::1" : "127.0.0.1"))\n"), "\(names.stdout)"
    )
    #expect(names.stderr.contains("note: the leaf is valid for: \(name)"), "\(names.stderr)")

    let suggested = try await cnpin(["pins", host.authority, "--format", "json", "--document"] + host.network)
    #expect(suggested.status == 0, "\(suggested.stderr)")
    let file = try host.directory.file("pins.json", suggested.stdout)
    let chain = try #require(
      try CNPinningDocument(contentsOf: URL(fileURLWithPath: file)).entries.first?.configuration.chains.first)
    #expect(chain.links.last == (try CNChainLink(.subjectAltName, name)))

    let url = "https://\(host.authority)/"
    let got = try await cnpin(["get", "--config", file, url, "-v"] + host.network)
    #expect(got.status == 0 && got.stdout == "hello", "\(got.stdout)\(got.stderr)")
    #expect(got.stderr.contains("(no CN; SAN "), "\(got.stderr)")
    let checked = try await cnpin(["check", "--config", file, host.authority] + host.network)
    #expect(checked.status == 0 && checked.stdout.contains("→ (no CN; SAN "), "\(checked.stdout)")
    // The leaf link can fail: a certificate for another name under the same CA is refused.
    let other = try host.pki.ye1.issue(
      { () -> TestCertificateSpec in
        var spec = TestCertificateSpec.leaf("unused", dnsNames: ["other.test"], ipAddresses: ["127.0.0.1"])
        spec.subject = []
        return spec
      }())
    let manager = try CNPinningManager(contentsOf: URL(fileURLWithPath: file))
    let otherChain = [
      other.certificate, host.pki.ye1.certificate, host.pki.rootYECrossSigned.certificate, host.pki.rootX2.certificate,
    ]
    let failure = manager.evaluate(host: name, chain: otherChain).failure
    if name == "api.test" {
      #expect(
        failure?.description.contains(#"is valid for "other.test", "127.0.0.1", which does not match subjectAltName "api.test""#)
          == true, "\(String(describing: failure))")
    }
    // A refusal names the CN-less leaf by its subjectAltName entries too.
    let refused = try CNPinningManager(configuration: [
      name: CNConfiguration([try CNChain([CNChainLink(.exact, "Some Other Root"), CNChainLink(.subjectAltName, name)])])
    ])
    let refusal = refused.evaluate(host: name, chain: otherChain).failure?.description ?? ""
    #expect(refusal.contains("(no CN; SAN other.test, 127.0.0.1)]"), "\(refusal)")
  }

  /// A leaf named after a load balancer (its CN is not the host): the suggestion pins the host it
  /// is valid for, not the name the next renewal changes.
  @Test func aLeafWhoseCNIsNotTheHostIsPinnedByTheHost() async throws {
    let pki = try TestPKI(leaf: "lb-7f3a.edge.example.net", dnsNames: ["api.test"])
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let directory = try TemporaryDirectory()
    let cafile = try directory.file("root.pem", pki.root.certificate.pemEncoded)
    let run = try await cnpin([
      "pins", "api.test:\(server.port)", "--cafile", cafile, "--resolve", "api.test:\(server.port):127.0.0.1", "--format",
      "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains(#"{"type": "subjectAltName", "value": "api.test"}"#), "\(run.stdout)")
    #expect(!run.stdout.contains("lb-7f3a"), "\(run.stdout)")
    #expect(run.stderr.contains("note: the leaf is valid for: api.test"), "\(run.stderr)")
  }

  /// The next CA's chain file, its root given as about to be trusted, turned into pins and added
  /// to the configuration in force, which keeps everything it had; then the rehearsal passes.
  @Test(arguments: ["json", "plist"])
  func aCAChangeIsRehearsedIntoTheFileInForce(_ format: String) async throws {
    let directory = try TemporaryDirectory()
    let today = try TestPKI(root: "Old Root CA 1", intermediate: "Old Issuing CA 3", leaf: "api.test", dnsNames: ["api.test"])
    let nextRoot = try TestIdentity.root("Next Root R46")
    let next = try nextRoot.issueIntermediate("Next Public Server Authentication CA DV R36")
    var spec = TestCertificateSpec.leaf("unused", dnsNames: ["api.test"])
    spec.subject = []
    let nextLeaf = try next.issue(spec)
    let inForce = try CNConfiguration(
      includesSubdomains: false,
      chains: [
        try CNChain([
          CNChainLink(.prefixWithNumber, "Old Root CA "), CNChainLink(.prefixWithNumber, "Old Issuing CA "),
          CNChainLink(.subjectAltName, "api.test"),
        ])
      ],
      spkiPins: [
        CNSPKIPin(certificate: today.root.certificate, scope: .ca), CNSPKIPin(certificate: nextRoot.certificate, scope: .ca),
      ],
      expirationDate: Date(timeIntervalSince1970: 1_900_000_000), reportURI: URL(string: "https://reports.test/pins"))
    let other = try CNConfiguration(includesSubdomains: true, [try CNChain([CNChainLink(.exact, "Other Root")])])
    let document = try CNPinningDocument(configuration: ["api.test": inForce, "other.test": other])
    let file = directory.url.appendingPathComponent("pins.\(format)")
    try document.encoded(as: format == "json" ? .json : .propertyList).write(to: file)

    let chainFile = try directory.file("next.pem", [nextLeaf.certificate, next.certificate].map(\.pemEncoded).joined())
    let todayAnchors = try directory.file("today.pem", today.root.certificate.pemEncoded)
    let future = try directory.file("future.pem", nextRoot.certificate.pemEncoded)
    let run = try await cnpin([
      "pins", "--chain", chainFile, "--host", "api.test", "--cafile", todayAnchors, "--future-anchors", future, "--add-to",
      file.path,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("verifies only under --future-anchors"), "\(run.stderr)")
    #expect(run.stderr.contains("added chain 1 to api.test in \(file.path)"), "\(run.stderr)")
    let updated = try CNPinningDocument(contentsOf: file)
    let entry = try #require(updated.entries.first { $0.host == "api.test" })
    #expect(entry.configuration.spkiPins == inForce.spkiPins)
    #expect(entry.configuration.expirationDate == inForce.expirationDate)
    #expect(entry.configuration.reportURI == inForce.reportURI)
    #expect(entry.configuration.chains.first == inForce.chains.first)
    #expect(
      entry.configuration.chains.last?.description
        == #"[prefixWithNumber "Next Root R" → prefixWithNumber "Next Public Server Authentication CA DV R" → subjectAltName "api.test"]"#
    )
    #expect(updated.entries.first { $0.host == "other.test" }?.configuration == other)

    // The rehearsal: the next chain, verified as the root will be trusted, passes the file.
    let both = try directory.file("both.pem", [today.root.certificate, nextRoot.certificate].map(\.pemEncoded).joined())
    let check = try await cnpin(["check", "--config", file.path, "--chain", chainFile, "--cafile", both, "--host", "api.test"])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    // Adding it again changes nothing.
    let again = try await cnpin([
      "pins", "--chain", chainFile, "--host", "api.test", "--cafile", todayAnchors, "--future-anchors", future, "--add-to",
      file.path,
    ])
    #expect(again.status == 0 && again.stderr.contains("already pins these chains"), "\(again.stderr)")
  }

  @Test func addToRefusesAFileThatHoldsMoreThanPins() async throws {
    let directory = try TemporaryDirectory()
    let pki = try TestPKI()
    let infoPlist = try directory.file(
      "Info.plist",
      String(
        decoding: plistDocument(
          """
          <dict><key>CFBundleIdentifier</key><string>com.example.app</string>
          <key>CNPinningManager</key><dict><key>PinnedDomains</key><dict><key>api.test</key><dict>
          <key>includesSubdomains</key><false/><key>chainSet</key><array><array>
          <dict><key>type</key><string>exact</string><key>value</key><string>Test Root X1</string></dict>
          <dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>R</string></dict>
          <dict><key>type</key><string>subjectAltName</string><key>value</key><string>api.test</string></dict>
          </array></array></dict></dict></dict></dict>
          """), as: UTF8.self))
    let before = try Data(contentsOf: URL(fileURLWithPath: infoPlist))
    let chain = try directory.file("chain.pem", pki.leaf.chain.dropLast().map(\.pemEncoded).joined())
    let anchors = try directory.file("anchors.pem", pki.root.certificate.pemEncoded)
    let run = try await cnpin(["pins", "--chain", chain, "--host", "api.test", "--cafile", anchors, "--add-to", infoPlist])
    #expect(run.status == 2)
    #expect(run.stderr.contains("holds more than pins (CFBundleIdentifier)"), "\(run.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: infoPlist)) == before)
    let missingHost = try await cnpin(["pins", "--chain", chain, "--cafile", anchors])
    #expect(missingHost.status == 2 && missingHost.stderr.hasPrefix("cnpin: --chain needs --host HOST"), "\(missingHost.stderr)")
    let wrongHost = try await cnpin(["pins", "--chain", chain, "--host", "elsewhere.test", "--cafile", anchors])
    #expect(wrongHost.status == 1 && wrongHost.stderr.contains("does not verify for elsewhere.test"), "\(wrongHost.stderr)")
  }
}

/// Wraps plist XML elements in a property-list document.
private func plistDocument(_ body: String) -> Data {
  Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>
    """.utf8)
}
#endif
