// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// What `cnpin pins` suggests: the other shape of a chain that runs through a cross-signed root,
/// a note about the next hierarchy otherwise, and entries that `cnpin lint` accepts.
@Suite("cnpin pins suggestions")
struct SuggestionTests {
  /// A Let's Encrypt Generation Y server for api.test, with the PEM files of its anchors.
  struct GenerationY {
    let pki: LetsEncryptPKI
    let server: LocalTLSServer
    let directory: TemporaryDirectory

    init(_ issuance: LetsEncryptPKI.Issuance = .generationYRSA) throws {
      pki = try LetsEncryptPKI()
      let (identity, chain) = try pki.server("api.test", issuance)
      var setup = LocalTLSServer.Configuration(identity: identity)
      setup.chain = chain
      server = try LocalTLSServer.start(setup)
      directory = try TemporaryDirectory()
    }

    func pins(_ format: String, anchors: [CNCertificate], future: [CNCertificate] = []) async throws -> Run {
      let cafile = try directory.file("anchors.pem", anchors.map(\.pemEncoded).joined())
      var arguments = [
        "pins", "api.test:\(server.port)", "--cafile", cafile, "--resolve", "api.test:\(server.port):127.0.0.1", "--format",
        format,
      ]
      if !future.isEmpty {
        arguments += ["--future-anchors", try directory.file("future.pem", future.map(\.pemEncoded).joined())]
      }
      return try await cnpin(arguments)
    }
  }

  static func chains(_ json: String) throws -> [[String]] {
    let entry = try #require(
      try JSONSerialization.jsonObject(with: Data("{\(json)}".utf8)) as? [String: [String: Any]])
    let chainSet = try #require(entry["api.test"]?["chainSet"] as? [[[String: Any]]])
    return chainSet.map {
      $0.map { "\($0["type"]!) \($0["value"]!)" + ($0["mayBeAnchor"] as? Bool == true ? " (may be the anchor)" : "") }
    }
  }

  /// Verified through the cross-sign (Generation X roots trusted, Root YR given as a root stores
  /// are about to carry): one chain covers both shapes, Root YR marked as a possible anchor.
  @Test func aChainThroughACrossSignCoversItsShorterShape() async throws {
    let y = try GenerationY()
    let run = try await y.pins("json", anchors: y.pki.anchors(.generationX), future: [y.pki.rootYR.certificate])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      try Self.chains(run.stdout) == [
        [
          "prefixWithNumber ISRG Root X", "exact Root YR (may be the anchor)", "prefixWithNumber YR", "subjectAltName api.test",
        ]
      ])
    #expect(run.stderr.contains("stores verify this chain in 2 shapes (4, 3 certificates"), "\(run.stderr)")
    let swift = try await y.pins("swift", anchors: y.pki.anchors(.generationX), future: [y.pki.rootYR.certificate])
    #expect(swift.stdout.contains(#"CNChainLink(.exact, "Root YR", mayBeAnchor: true),  // Root YR"#), "\(swift.stdout)")
  }

  /// Let's Encrypt's default ECDSA chain on a store that holds every root: the three shapes it
  /// takes on the stores of 2026 come from OpenSSL's own verification under each root, in one chain.
  @Test func theDefaultECDSAChainGetsEveryShapeInOneChain() async throws {
    let y = try GenerationY(.generationYECDSA)
    let run = try await y.pins("json", anchors: y.pki.anchors(.generationY))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      try Self.chains(run.stdout) == [
        [
          "prefixWithNumber ISRG Root X", "prefixWithNumber ISRG Root X (may be the anchor)",
          "exact Root YE (may be the anchor)", "prefixWithNumber YE", "subjectAltName api.test",
        ]
      ])
  }

  /// A server that sends a "cross-sign" with an anchor's name as its issuer, but signed by a key of
  /// its own, gets no shape through it: a shape is a chain OpenSSL verified (issue 56, item 3;
  /// the old suggestion compared names and pinned whatever root the server named).
  @Test func aForgedCrossSignGivesNoShape() async throws {
    let pki = try LetsEncryptPKI()
    let impostor = try TestIdentity.selfSigned(.ca("ISRG Root X1"))
    var spec = TestCertificateSpec.ca("Root YE")
    spec.subject = [.country("US"), .organization("ISRG"), .commonName("Root YE")]
    spec.key = pki.rootYE.privateKey
    let forged = try impostor.issue(spec)
    let leaf = try pki.ye1.issueLeaf("api.test", dnsNames: ["api.test"])
    var setup = LocalTLSServer.Configuration(identity: leaf)
    setup.chain = [pki.ye1.certificate, forged.certificate]
    let server = try LocalTLSServer.start(setup)
    let directory = try TemporaryDirectory()
    let cafile = try directory.file("anchors.pem", (pki.anchors(.generationY)).map(\.pemEncoded).joined())
    let run = try await cnpin([
      "pins", "api.test:\(server.port)", "--cafile", cafile, "--resolve", "api.test:\(server.port):127.0.0.1", "--format", "json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try Self.chains(run.stdout) == [["exact Root YE", "prefixWithNumber YE", "subjectAltName api.test"]])
  }

  /// Without a cross-sign in sight, the output says what a hierarchy change needs.
  @Test func aSingleChainSaysHowToRehearseTheNext() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      ["pins", "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile, "--format", "plist"]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0)
    #expect(
      run.stderr.contains("rehearse it before the switch with cnpin pins --chain NEXT.pem --host api.test --add-to FILE"),
      "\(run.stderr)")
  }

  /// A private CA's chain without --cafile: refused, with the hint lint gives.
  @Test func aPrivateCAWithoutCafileGetsAHint() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(["pins", "api.test:\(fixture.genuine.port)"] + fixture.resolve(fixture.genuine))
    #expect(run.status == 1)
    #expect(
      run.stderr.contains("hint: the chain is not trusted by the system's store; for a private CA, give its root with --cafile"))
  }

  /// Every entry `cnpin pins` suggests loads and lints clean of errors and of whitespace
  /// findings, with the anchors it was made against (what `lint --trust none`, the build plugin,
  /// and `check` then agree on): `Amazon Root CA 1` becomes `prefixWithNumber "Amazon Root CA "`,
  /// a space lint once told users to remove, which made `check` fail.
  @Test(arguments: [
    ("Newcomer Root CA 1", "Newcomer Issuing CA 2", "api.test"), ("Amazon Root CA 1", "Amazon RSA 2048 M01", "api.test"),
    ("Test Root X1", "R11", "api.test"), ("GTS Root R1", "WR1", "api.test"),
    ("DigiCert Global Root G2", "DigiCert Global G2 TLS RSA SHA256 2020 CA1", "api.test"),
  ])
  func lintAcceptsWhatPinsSuggests(_ root: String, _ intermediate: String, _ leaf: String) async throws {
    let fixture = try Fixture(root: root, intermediate: intermediate, leaf: leaf)
    let base = ["pins", "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)
    for format in ["json", "plist"] {
      let suggested = try await cnpin(base + ["--format", format, "--document"])
      #expect(suggested.status == 0, "\(suggested.stderr)")
      let file = try fixture.directory.file("suggested.\(format == "json" ? "json" : "plist")", suggested.stdout)
      for trust in [["--cafile", fixture.caFile], ["--trust", "none"]] {
        let lint = try await cnpin(["lint", file] + trust)
        #expect(lint.status == 0, "\(format) \(trust): \(lint.stdout)")
        #expect(!lint.stdout.contains("whitespace"), "\(format) \(trust): \(lint.stdout)")
      }
      let check = try await cnpin(
        ["check", "--config", file, "api.test:\(fixture.genuine.port)", "--cafile", fixture.caFile]
          + fixture.resolve(fixture.genuine))
      #expect(check.status == 0, "\(check.stdout)")
    }
  }
}
#endif
