// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin policy")
struct PolicyCommandTests {
  @Test(arguments: ["ES256", "PS512", "RS256"])
  func signThenVerify(_ alg: String) async throws {
    let directory = try TemporaryDirectory()
    let key = try TestPrivateKey.shared(alg.hasPrefix("ES") ? .p256 : .rsa2048, slot: 60)
    let privateKey = try directory.file("private.pem", try key.pemEncoded)
    let publicKey = try directory.file("public.pem", try key.publicKeyPEM)
    let now = Int(Date().timeIntervalSince1970)
    let policy = try directory.file(
      "policy.json",
      #"{"iat": \#(now - 10), "exp": \#(now + 600), "api.test": [[{"type": "exact", "value": "Corp Root"}, {"type": "suffix", "value": ".test"}]]}"#
    )

    let signed = try await cnpin(["policy", "sign", "--key", privateKey, "--alg", alg, policy])
    #expect(signed.status == 0, "\(signed.stderr)")
    #expect(signed.stdout.split(separator: ".").count == 3)
    let token = try directory.file("policy.jws", signed.stdout)
    // The documented flow: the file `> policy.jws` writes (with the shell's final line break)
    // applies as it is.
    #expect(signed.stdout.hasSuffix("\n"))
    let manager = try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "App Root"), CNChainLink(.suffix, ".test")])])
      ],
      enterprise: CNEnterpriseOptions(
        authenticationHost: "auth.test", policySigningKey: try CNPolicySigningKey(pemEncoded: try key.publicKeyPEM)))
    try manager.applyEnterprisePolicy(with: try Data(contentsOf: URL(fileURLWithPath: token)))

    let verified = try await cnpin(["policy", "verify", "--key", publicKey, token])
    #expect(verified.status == 0, "\(verified.stderr)")
    #expect(verified.stdout.hasPrefix("verified: \(alg) signature by the given key\nwindow: "))
    #expect(verified.stdout.contains(#"api.test: [exact "Corp Root" → suffix ".test"]"#))

    let json = try await cnpin(["policy", "verify", "--key", publicKey, token, "--json"])
    let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    #expect(report?["validNow"] as? Bool == true)
    #expect(report?["algorithm"] as? String == alg)
  }

  /// `cnpin policy rescue` (issue 54, item 1): one command from the chain a host serves after its
  /// CA changed to a signed policy that makes the app's manager accept it again, for a bounded
  /// time, with a report-only window inside it.
  @Test func rescueMakesTheSignedPolicyThatAcceptsTheNewChain() async throws {
    let directory = try TemporaryDirectory()
    let key = try TestPrivateKey.shared(.p256, slot: 61)
    let privateKey = try directory.file("private.pem", try key.pemEncoded)
    let newCA = try TestPKI(root: "New Root R2", intermediate: "New CA 7", leaf: "api.test", dnsNames: ["api.test"])
    let chainFile = try directory.file(
      "new.pem", newCA.leaf.certificate.pemEncoded + newCA.intermediate.certificate.pemEncoded)
    let roots = try directory.file("roots.pem", newCA.root.certificate.pemEncoded)
    let made = try await cnpin([
      "policy", "rescue", "--key", privateKey, "--chain", chainFile, "--host", "api.test", "--cafile", roots, "--hours", "48",
      "--report-only-hours", "6",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    #expect(
      made.stderr.contains(
        #"rescue: api.test: [prefixWithNumber "New Root R" → prefixWithNumber "New CA " → subjectAltName "api.test"]"#),
      "\(made.stderr)")
    let policy = try CNEnterprisePolicy(
      token: Data(made.stdout.utf8).dropLast(), key: try CNPolicySigningKey(pemEncoded: try key.publicKeyPEM))
    #expect(policy.expiry.timeIntervalSince(policy.issuedAt) == 48 * 3600)
    #expect(try #require(policy.reportOnlyUntil["api.test"]).timeIntervalSince(policy.issuedAt) == 6 * 3600)

    // The app's pins refuse the new chain; with the rescue applied, they accept it.
    let manager = try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Old Root"), CNChainLink(.exact, "api.test")])])
      ],
      enterprise: CNEnterpriseOptions(
        authenticationHost: "auth.test", policySigningKey: try CNPolicySigningKey(pemEncoded: try key.publicKeyPEM)))
    let verified = newCA.leaf.chain
    guard case .rejected = manager.evaluate(host: "api.test", chain: verified) else {
      Issue.record("the old pins accepted the new chain")
      return
    }
    try manager.applyEnterprisePolicy(with: Data(made.stdout.utf8))
    guard case .accepted = manager.evaluate(host: "api.test", chain: verified) else {
      Issue.record("the rescue did not accept the new chain")
      return
    }

    // Issue 65: the rescue keeps key pinning. It carries the new chain's CA keys, which replace
    // the app's key pins along its chain: an app that also pins its old CA's key is rescued, and
    // a CA copying the new names with a key of its own is not.
    #expect(
      policy.spkiPins["api.test"]?.map(\.sha256Base64).sorted()
        == [newCA.intermediate.certificate.spkiSHA256Base64, newCA.root.certificate.spkiSHA256Base64].sorted())
    #expect(policy.spkiPins["api.test"]?.allSatisfy { $0.scope == .ca } == true)
    #expect(made.stderr.contains("its own 2 key pin(s) replace the host's spkiPins and certificatePins"), "\(made.stderr)")
    #expect(made.stderr.contains("rescue: pinning is OFF for api.test until "), "\(made.stderr)")
    #expect(made.stderr.contains("a policy never applies to the app's authentication host"), "\(made.stderr)")
    let oldCA = try TestPKI(root: "Old Root", intermediate: "Old CA 1", leaf: "api.test", dnsNames: ["api.test"])
    let keyPinned = try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration(
          chains: [try CNChain([CNChainLink(.exact, "Old Root"), CNChainLink(.exact, "api.test")])],
          spkiPins: [CNSPKIPin(certificate: oldCA.intermediate.certificate, scope: .ca)])
      ],
      enterprise: CNEnterpriseOptions(
        authenticationHost: "auth.test", policySigningKey: try CNPolicySigningKey(pemEncoded: try key.publicKeyPEM)))
    try keyPinned.applyEnterprisePolicy(with: Data(made.stdout.utf8))
    #expect(keyPinned.evaluate(host: "api.test", chain: verified).acceptedMatch?.source == .enterprisePolicy)
    let copycat = try TestPKI(root: "New Root R2", intermediate: "New CA 7", leaf: "api.test", dnsNames: ["api.test"])
    // Reported only while the report-only window lasts (pinning is off, as the command says),
    // refused after it.
    #expect(keyPinned.evaluate(host: "api.test", chain: copycat.leaf.chain).reportOnlyFailure != nil)
    let afterWindow = policy.issuedAt.addingTimeInterval(7 * 3600)
    #expect(
      keyPinned.evaluate(host: "api.test", chain: copycat.leaf.chain, at: afterWindow).rejection != nil,
      "names alone let a copy in")
    #expect(keyPinned.evaluate(host: "api.test", chain: verified, at: afterWindow).acceptedMatch != nil)

    // verify says the same: each host's key pins and the window in which pinning is off.
    let publicKey = try directory.file("public.pem", try key.publicKeyPEM)
    let token = try directory.file("rescue.jws", made.stdout)
    let shown = try await cnpin(["policy", "verify", "--key", publicKey, token])
    #expect(shown.stdout.contains("api.test: along the policy's chains, its own 2 key pin(s) replace"), "\(shown.stdout)")
    #expect(shown.stdout.contains("pinning is OFF for api.test until "), "\(shown.stdout)")
    let json = try await cnpin(["policy", "verify", "--key", publicKey, token, "--json"])
    let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect((report["reportOnlyUntil"] as? [String: Any])?["api.test"] != nil, "\(json.stdout)")
    #expect(((report["keyPins"] as? [String: String])?["api.test"])?.contains("its own 2 key pin(s)") == true)

    // What the rescue refuses to make: a chain that does not verify, a report-only window past the policy.
    let unverified = try await cnpin(["policy", "rescue", "--key", privateKey, "--chain", chainFile, "--host", "api.test"])
    #expect(unverified.status == 1, "\(unverified.stderr)")
    let tooLong = try await cnpin([
      "policy", "rescue", "--key", privateKey, "--chain", chainFile, "--host", "api.test", "--cafile", roots, "--hours", "2",
      "--report-only-hours", "3",
    ])
    #expect(tooLong.status == 2)
    #expect(tooLong.stderr.contains("--report-only-hours needs a whole number of hours from 1 to 2"))
  }

  /// Signing reads the payload as verification does, so a repeated key (which JSONSerialization
  /// accepts and the verifier refuses) or a bad chain is refused before anything is signed.
  @Test func signRefusesWhatVerificationWouldRefuse() async throws {
    let directory = try TemporaryDirectory()
    let key = try directory.file("k.pem", try TestPrivateKey.shared(.p256, slot: 60).pemEncoded)
    let now = Int(Date().timeIntervalSince1970)
    let repeated = try directory.file(
      "repeated.json",
      #"{"iat": \#(now), "exp": \#(now + 600), "api.test": [[{"type": "exact", "value": "A"}]], "api.test": [[{"type": "exact", "value": "B"}]]}"#
    )
    let signed = try await cnpin(["policy", "sign", "--key", key, repeated])
    #expect(signed.status == 2 && signed.stdout.isEmpty)
    #expect(signed.stderr.contains(#"duplicate key "api.test" in the same object"#), "\(signed.stderr)")
    let badLink = try directory.file(
      "bad.json", #"{"iat": \#(now), "exp": \#(now + 600), "*": [[{"type": "prefx", "value": "A"}]]}"#)
    let refused = try await cnpin(["policy", "sign", "--key", key, badLink])
    #expect(refused.status == 2 && refused.stdout.isEmpty)
    #expect(refused.stderr.contains(#"payload["*"][0][0].type: unknown link type "prefx""#), "\(refused.stderr)")
  }

  /// The policy format is shared with the Android sibling: a policy that uses what a reader of
  /// the older format refuses is signed, with a warning that says what such a reader does.
  @Test func signWarnsWhenAPolicyUsesTheNewerLinkForms() async throws {
    let directory = try TemporaryDirectory()
    let key = try directory.file("k.pem", try TestPrivateKey.shared(.p256, slot: 60).pemEncoded)
    let now = Int(Date().timeIntervalSince1970)
    let newer = try directory.file(
      "newer.json",
      #"{"iat": \#(now), "exp": \#(now + 600), "api.test": [[{"type": "exact", "value": "Root", "mayBeAnchor": false}, {"type": "subjectAltName", "value": "api.test"}]]}"#
    )
    let signed = try await cnpin(["policy", "sign", "--key", key, newer])
    #expect(signed.status == 0, "\(signed.stderr)")
    #expect(
      signed.stderr.contains(
        "warning: the policy uses subjectAltName links and mayBeAnchor, which the reader of CNPinning 0.1.0"
      ),
      "\(signed.stderr)")
    #expect(signed.stderr.contains("refuses the whole policy, and the app's own pins stay in force"))
    let older = try directory.file(
      "older.json", #"{"iat": \#(now), "exp": \#(now + 600), "api.test": [[{"type": "exact", "value": "Root"}]]}"#)
    let plain = try await cnpin(["policy", "sign", "--key", key, older])
    #expect(plain.status == 0 && !plain.stderr.contains("warning"), "\(plain.stderr)")
    // What the policy does to the host's key pins is said every time (issue 65, item 1).
    #expect(
      plain.stderr
        == "policy: api.test: along the policy's chains, the host's own key pins (spkiPins, certificatePins) still apply\n")
  }

  @Test func verifyFailuresSayWhy() async throws {
    let directory = try TemporaryDirectory()
    let key = try TestPrivateKey.shared(.p256, slot: 60)
    let other = try TestPrivateKey.shared(.p256, slot: 61)
    let now = Int(Date().timeIntervalSince1970)
    let policy = try directory.file(
      "policy.json", #"{"iat": \#(now - 10), "exp": \#(now + 600), "*": [[{"type": "exact", "value": "Corp Root"}]]}"#)
    let signed = try await cnpin(["policy", "sign", "--key", try directory.file("k.pem", try key.pemEncoded), policy])
    let token = try directory.file("t.jws", signed.stdout)
    let wrongKey = try await cnpin(["policy", "verify", "--key", try directory.file("o.pem", try other.publicKeyPEM), token])
    #expect(wrongKey.status == 1)
    #expect(wrongKey.stderr.contains("the policy's signature does not verify with the policy-signing key"))
    let privateAsPublic = try await cnpin(["policy", "verify", "--key", try directory.file("p.pem", try key.pemEncoded), token])
    #expect(privateAsPublic.status == 2)
    #expect(privateAsPublic.stderr.contains("a private key was given"))
    let expiredPolicy = try directory.file(
      "old.json", #"{"iat": 1000, "exp": 2000, "*": [[{"type": "exact", "value": "Corp Root"}]]}"#)
    let expired = try await cnpin(["policy", "sign", "--key", try directory.file("k2.pem", try key.pemEncoded), expiredPolicy])
    let expiredRun = try await cnpin([
      "policy", "verify", "--key", try directory.file("pub.pem", try key.publicKeyPEM),
      try directory.file("old.jws", expired.stdout),
    ])
    #expect(expiredRun.status == 1)
    #expect(expiredRun.stderr.contains("the policy expired at 1970-01-01T00:33:20Z"))
    let badAlg = try await cnpin([
      "policy", "sign", "--key", try directory.file("k3.pem", try key.pemEncoded), "--alg", "RS256", policy,
    ])
    #expect(badAlg.status == 2)
    #expect(badAlg.stderr.contains("the policy is signed with RS256, which a EC P-256 key cannot verify"))
  }
}
#endif
