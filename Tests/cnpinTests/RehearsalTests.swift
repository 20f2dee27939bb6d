// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Rehearsing a CA's change before it happens (`cnpin check --chain`), expiry horizons for CI
/// (`--warn-days`), and the certificate profile on the command line (`--profile`).
@Suite("cnpin check --chain, --warn-days, --profile")
struct RehearsalTests {
  /// Let's Encrypt's hierarchies, a Generation X configuration (every document's example until
  /// 2026) and the transition configuration, with the chains a server sends written as PEM files.
  struct Rehearsal {
    let pki: LetsEncryptPKI
    let directory: TemporaryDirectory
    let generationX: String
    let transition: String
    let anchorsX: String

    init() throws {
      pki = try LetsEncryptPKI()
      directory = try TemporaryDirectory()
      func chain(_ links: [(String, String)]) -> String {
        "[" + links.map { #"{"type": "\#($0.0)", "value": "\#($0.1)"}"# }.joined(separator: ", ") + "]"
      }
      generationX = try directory.file(
        "generation-x.json",
        #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [\#(chain([("prefixWithNumber", "ISRG Root X"), ("prefixWithNumber", "R"), ("exact", "api.example.com")]))]}}}"#
      )
      let y = [
        chain([
          ("prefixWithNumber", "ISRG Root X"), ("exact", "Root YR"), ("prefixWithNumber", "YR"), ("exact", "api.example.com"),
        ]),
        chain([("exact", "Root YR"), ("prefixWithNumber", "YR"), ("exact", "api.example.com")]),
        chain([
          ("prefixWithNumber", "ISRG Root X"), ("exact", "Root YE"), ("prefixWithNumber", "YE"), ("exact", "api.example.com"),
        ]),
        chain([("exact", "Root YE"), ("prefixWithNumber", "YE"), ("exact", "api.example.com")]),
      ]
      transition = try directory.file(
        "transition.json",
        #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [\#(y.joined(separator: ", "))]}}}"#)
      anchorsX = try directory.file("anchors-x.pem", pki.anchors(includingGenerationY: false).map(\.pemEncoded).joined())
    }

    /// The PEM a server of this issuance sends: the leaf, the intermediate, the cross-signed root.
    func served(_ issuance: LetsEncryptPKI.Issuance) throws -> String {
      let (leaf, chain) = try pki.server("api.example.com", issuance)
      return try directory.file("\(issuance).pem", ([leaf.certificate] + chain).map(\.pemEncoded).joined())
    }
  }

  /// Rehearsed before May 2026 with the chains Let's Encrypt published: the Generation X
  /// configuration fails both Generation Y chains, saying why, and the transition one passes
  /// them; several chains at once, offline, verified against the anchors given.
  @Test func aGenerationXConfigurationFailsTheRehearsalOfGenerationY() async throws {
    let rehearsal = try Rehearsal()
    let rsa = try rehearsal.served(.generationYRSA)
    let ecdsa = try rehearsal.served(.generationYECDSA)
    let before = try await cnpin([
      "check", "--config", rehearsal.generationX, "--chain", rsa, "--chain", ecdsa, "--cafile", rehearsal.anchorsX,
    ])
    #expect(before.status == 1, "\(before.stdout)\(before.stderr)")
    let lines = before.stdout.split(separator: "\n")
    #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("FAIL       api.example.com (") }, "\(before.stdout)")
    #expect(before.stdout.contains("expected 3 certificates, the verified chain has 4"), "\(before.stdout)")

    let after = try await cnpin([
      "check", "--config", rehearsal.transition, "--chain", rsa, "--chain", ecdsa, "--cafile", rehearsal.anchorsX, "--json",
    ])
    #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
    let results = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]])
    #expect(results.map { $0["status"] as? String } == ["PASS", "PASS"])
    #expect((results[0]["detail"] as? String)?.contains("[ISRG Root X1 → Root YR → YR2 → api.example.com]") == true)
    #expect((results[1]["detail"] as? String)?.contains("[ISRG Root X2 → Root YE → YE1 → api.example.com]") == true)

    // With the Generation Y roots in the store, the shorter shape, found without --host.
    let anchorsY = try rehearsal.directory.file(
      "anchors-y.pem", rehearsal.pki.anchors(includingGenerationY: true).map(\.pemEncoded).joined())
    let shorter = try await cnpin(["check", "--config", rehearsal.transition, "--chain", rsa, "--cafile", anchorsY])
    #expect(shorter.status == 0 && shorter.stdout.contains("[Root YR → YR2 → api.example.com]"), "\(shorter.stdout)")
  }

  /// A chain is verified as a connection's would be: against another root it fails as untrusted,
  /// for a host it does not name as a mismatch, and a host the file does not pin is NOT PINNED.
  @Test func aRehearsedChainIsVerifiedAsAConnectionsWouldBe() async throws {
    let rehearsal = try Rehearsal()
    let rsa = try rehearsal.served(.generationYRSA)
    let other = try rehearsal.directory.file("other.pem", try TestIdentity.root("Other Root").certificate.pemEncoded)
    let untrusted = try await cnpin(["check", "--config", rehearsal.transition, "--chain", rsa, "--cafile", other])
    #expect(untrusted.status == 1 && untrusted.stdout.contains("not trusted"), "\(untrusted.stdout)")
    let elsewhere = try await cnpin([
      "check", "--config", rehearsal.transition, "--chain", rsa, "--cafile", rehearsal.anchorsX, "--host", "www.example.com",
    ])
    #expect(elsewhere.status == 1 && elsewhere.stdout.contains("NOT PINNED"), "\(elsewhere.stdout)")
    let mismatch = try await cnpin([
      "check", "--config", rehearsal.generationX.replacingOccurrences(of: "", with: ""), "--chain", rsa, "--cafile",
      rehearsal.anchorsX, "--host", "api.example.com", "--host", "127.0.0.1",
    ])
    #expect(mismatch.status == 1, "\(mismatch.stdout)")
    let none = try await cnpin([
      "check", "--config", rehearsal.transition, "--chain", other, "--cafile", rehearsal.anchorsX,
    ])
    #expect(none.status == 1 && none.stdout.contains("is for none of the configuration's hosts"), "\(none.stdout)")
  }

  /// Hosts taken from the configuration are checked on port 443, and the output says so.
  @Test func checkingTheConfigurationsHostsSaysWhichPort() async throws {
    let rehearsal = try Rehearsal()
    let run = try await cnpin(
      ["check", "--config", rehearsal.transition, "--resolve", "api.example.com:443:127.0.0.1", "--timeout", "2"])
    #expect(run.status == 3, "\(run.stdout)\(run.stderr)")
    #expect(run.stderr.contains("checking port 443 of each host the configuration pins"), "\(run.stderr)")
    #expect(run.stdout.contains("api.example.com:443"), "\(run.stdout)")
  }

  /// `--warn-days` reports a certificate of the verified chain, a host's pins and a policy that
  /// expire within the horizon, with exit status 4 when everything passed, and a JSON field.
  @Test func expiryHorizonsWarnBeforeUsersBreak() async throws {
    let rehearsal = try Rehearsal()
    let rsa = try rehearsal.served(.generationYRSA)
    let base = ["check", "--config", rehearsal.transition, "--chain", rsa, "--cafile", rehearsal.anchorsX]
    let quiet = try await cnpin(base + ["--warn-days", "1"])
    #expect(quiet.status == 0, "\(quiet.stdout)")
    // The test kit's certificates are valid for a year or so: within ten years, every one expires.
    let loud = try await cnpin(base + ["--warn-days", "3650", "--json"])
    #expect(loud.status == 4, "\(loud.stdout)\(loud.stderr)")
    let results = try #require(try JSONSerialization.jsonObject(with: Data(loud.stdout.utf8)) as? [[String: Any]])
    let expiring = try #require(results.first?["expiring"] as? [[String: Any]])
    #expect(Set(expiring.compactMap { $0["name"] as? String }) == ["api.example.com", "YR2", "Root YR", "ISRG Root X1"])

    let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(10 * 86_400))
    let pins = try rehearsal.directory.file(
      "expiring.json",
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "expirationDate": "\#(soon)", "chainSet": [[{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "exact", "value": "Root YR"}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "exact", "value": "api.example.com"}]]}}}"#
    )
    let payload =
      #"{"iat": \#(Int(Date().timeIntervalSince1970) - 60), "exp": \#(Int(Date().timeIntervalSince1970) + 5 * 86_400), "*": [[{"type": "exact", "value": "Inspection Root"}, {"type": "suffix", "value": ".test"}]]}"#
    func base64url(_ text: String) -> String {
      Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
    }
    let policy = try rehearsal.directory.file(
      "policy.jws", base64url(#"{"alg": "ES256"}"#) + "." + base64url(payload) + ".c2ln\n")
    let lint = try await cnpin(["lint", pins, "--trust", "none", "--warn-days", "30", "--policy", policy])
    #expect(lint.status == 4, "\(lint.stdout)\(lint.stderr)")
    #expect(lint.stdout.contains("warning: pins api.example.com expires"), "\(lint.stdout)")
    #expect(lint.stdout.contains("warning: policy \(policy) expires"), "\(lint.stdout)")
    let checked = try await cnpin([
      "check", "--config", pins, "--chain", rsa, "--cafile", rehearsal.anchorsX, "--warn-days", "30", "--policy", policy,
    ])
    #expect(checked.status == 4, "\(checked.stdout)\(checked.stderr)")
    #expect(checked.stdout.contains("WARNING    api.example.com ("), "\(checked.stdout)")
    let bad = try await cnpin(["lint", pins, "--trust", "none", "--warn-days", "soon"])
    #expect(bad.status == 2 && bad.stderr.contains("--warn-days needs a whole number of days"), "\(bad.stderr)")
  }

  /// `--profile webpki` holds a private PKI to the Web-PKI rules (its leaf CN is a description,
  /// which no SAN carries), `automatic` does not with custom anchors, on pins, check and get.
  @Test func theCertificateProfileIsAnOption() async throws {
    let pki = try TestPKI(leaf: "Payments Service", dnsNames: ["api.test"])
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let directory = try TemporaryDirectory()
    let caFile = try directory.file("ca.pem", pki.root.certificate.pemEncoded)
    let host = ["api.test:\(server.port)"]
    let base = ["--cafile", caFile, "--resolve", "api.test:\(server.port):127.0.0.1"]
    let automatic = try await cnpin(["pins"] + host + base)
    #expect(automatic.status == 0, "\(automatic.stderr)")
    let strict = try await cnpin(["pins"] + host + base + ["--profile", "webpki"])
    #expect(strict.status == 1, "\(strict.stdout)\(strict.stderr)")
    let config = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "Test Root X"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "exact", "value": "Payments Service"}]]}}}"#
    )
    let passes = try await cnpin(["check", "--config", config] + host + base)
    #expect(passes.status == 0, "\(passes.stdout)")
    let check = try await cnpin(["check", "--config", config] + host + base + ["--profile", "webpki"])
    #expect(check.status == 1, "\(check.stdout)")
    let get = try await cnpin(["get", "https://api.test:\(server.port)/", "--config", config] + base + ["--profile", "webpki"])
    #expect(get.status == 1, "\(get.stderr)")
    let openssl = try await cnpin(["pins"] + host + base + ["--profile", "openssl"])
    #expect(openssl.status == 0)
    let wrong = try await cnpin(["pins"] + host + base + ["--profile", "strict"])
    #expect(wrong.status == 2 && wrong.stderr.contains("--profile takes automatic, webpki or openssl"), "\(wrong.stderr)")
  }
}
#endif
