// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
@testable import CNPinningSession
@testable import CNPinningCurl
import CNPinningTestKit
import Foundation
import Testing

/// The verdict on a request's connection, from facts alone: no socket, no OpenSSL.
@Suite("Connection verdict")
struct ConnectionVerdictTests {
  static let trust = ObjectIdentifier(ConnectionVerdictTests.Token.self)
  enum Token {}

  let pki: TestPKI
  let chain: [CNCertificate]

  init() throws {
    pki = try TestPKI()
    chain = pki.leaf.chain
  }

  func facts(
    _ use: ConnectionFacts.Use = .new, version: Int = 0x0304, cipher: NegotiatedCipher? = nil, chain: [CNCertificate]? = nil,
    host: String = "api.test", port: Int = 443, trust: ObjectIdentifier = Self.trust, presented: [CNCertificate] = []
  ) -> ConnectionFacts {
    ConnectionFacts(
      use: use, protocolVersion: version, cipher: cipher,
      verified: VerifiedChain(host: host, port: port, trust: trust, certificates: chain ?? self.chain, presented: presented))
  }

  func policy(
    manager: CNPinningManager? = nil, unpinned: CNUnpinnedHostPolicy = .allow,
    transportSecurity: CNTransportSecurityException? = CNTransportSecurityException()
  ) -> RequestPolicy {
    let policy = TransportRules(minimumTLSVersion: .tls12, isEnforced: transportSecurity != nil)
    return RequestPolicy(
      host: "api.test", hostName: try! HostName.parse("api.test").get(), port: 443, trust: Self.trust, manager: manager,
      unpinnedHosts: unpinned, rules: transportSecurity?.applied(to: policy) ?? policy, wantsPresentedChain: false)
  }

  @Test func matchingPinsAreAcceptedOnEveryKindOfConnection() throws {
    for use in [ConnectionFacts.Use.new, .reused, .resumed] {
      let judgement = ConnectionVerdict.judge(facts(use), under: policy(manager: try matchingPins()), at: Date())
      #expect(judgement.rejection == nil)
      #expect(judgement.pinning?.acceptedMatch != nil, "expected acceptance, got \(String(describing: judgement.pinning))")
      #expect(judgement.use == use)
    }
  }

  @Test func thePinsInForceDecide() throws {
    let other = try pins("api.test", [(.exact, "Other Root"), (.prefixWithNumber, "R"), (.exact, "api.test")])
    let judgement = ConnectionVerdict.judge(facts(.resumed), under: policy(manager: other), at: Date())
    let failure = try #require(
      judgement.rejection?.pinFailure, "expected a pin mismatch, got \(String(describing: judgement.rejection))")
    #expect(failure.presentedCommonNames == ["Test Root X1", "R11", "api.test"])
  }

  @Test func unpinnedHostsFollowTheSessionsRule() throws {
    let elsewhere = try matchingPins("other.test")
    #expect(ConnectionVerdict.judge(facts(), under: policy(manager: elsewhere), at: Date()).rejection == nil)
    #expect(
      ConnectionVerdict.judge(facts(), under: policy(manager: elsewhere, unpinned: .deny), at: Date()).rejection
        == .hostNotPinned(host: "api.test"))
    #expect(
      ConnectionVerdict.judge(facts(), under: policy(manager: nil, unpinned: .deny), at: Date()).rejection
        == .hostNotPinned(host: "api.test"))
  }

  @Test func aConnectionWithoutAVerifiedChainIsRefused() throws {
    let missing = ConnectionFacts(use: .reused, protocolVersion: 0x0304, cipher: nil, verified: nil)
    let judgement = ConnectionVerdict.judge(missing, under: policy(), at: Date())
    let (host, reason) = try #require(
      judgement.rejection?.details(.untrustedChain), "expected an untrusted chain, got \(String(describing: judgement.rejection))"
    )
    #expect(host == "api.test")
    #expect(reason.contains("no verified chain"))
  }

  @Test(arguments: [("other.test", 443, false), ("api.test", 8443, false), ("api.test", 443, true)])
  func aChainVerifiedForAnotherHostPortOrTrustIsRefused(host: String, port: Int, otherTrust: Bool) throws {
    let trust = otherTrust ? ObjectIdentifier(Int.self) : Self.trust
    let judgement = ConnectionVerdict.judge(
      facts(.resumed, host: host, port: port, trust: trust), under: policy(manager: try matchingPins()), at: Date())
    let (refusedHost, reason) = try #require(
      judgement.rejection?.details(.untrustedChain), "expected an untrusted chain, got \(String(describing: judgement.rejection))"
    )
    #expect(refusedHost == "api.test")
    #expect(reason.contains("\(host):\(port)"))
    #expect(judgement.pinning == nil, "the pins are not consulted for a chain verified for someone else")
  }

  /// Every certificate of the chain counts: the window is from the latest `notBefore` to the
  /// earliest `notAfter` (the CAs here were issued a moment before the leaf, so in a different
  /// second the leaf's own dates are not the chain's).
  @Test func datesAreCheckedAtTheTimeOfTheRequest() throws {
    let lastStart = try #require(chain.map(\.notValidBefore).max())
    let firstEnd = try #require(chain.map(\.notValidAfter).min())
    let policy = policy(manager: try matchingPins())
    #expect(ConnectionVerdict.judge(facts(.resumed), under: policy, at: firstEnd).rejection == nil)
    #expect(ConnectionVerdict.judge(facts(.resumed), under: policy, at: lastStart).rejection == nil)
    #expect(
      ConnectionVerdict.judge(facts(.resumed), under: policy, at: firstEnd.addingTimeInterval(1)).rejection
        == .certificateExpired(host: "api.test"))
    #expect(
      ConnectionVerdict.judge(facts(.reused), under: policy, at: lastStart.addingTimeInterval(-1)).rejection
        == .certificateNotYetValid(host: "api.test"))
  }

  @Test func transportSecurityJudgesTheNegotiatedVersionAndCipher() throws {
    let cbc = NegotiatedCipher(name: "ECDHE-ECDSA-AES128-SHA256", isAuthenticatedEncryption: false, isForwardSecret: true)
    let gcm = NegotiatedCipher(name: "ECDHE-ECDSA-AES128-GCM-SHA256", isAuthenticatedEncryption: true, isForwardSecret: true)
    let plain = NegotiatedCipher(name: "AES128-GCM-SHA256", isAuthenticatedEncryption: true, isForwardSecret: false)
    #expect(ConnectionVerdict.judge(facts(version: 0x0303, cipher: gcm), under: policy(), at: Date()).rejection == nil)
    #expect(
      ConnectionVerdict.judge(facts(version: 0x0303, cipher: cbc), under: policy(), at: Date()).rejection
        == .transportSecurity(.cipherSuite(host: "api.test", found: cbc.name)))
    #expect(
      ConnectionVerdict.judge(facts(version: 0x0303, cipher: plain), under: policy(), at: Date()).rejection
        == .transportSecurity(.cipherSuite(host: "api.test", found: plain.name)))
    #expect(
      ConnectionVerdict.judge(facts(version: 0x0302, cipher: gcm), under: policy(), at: Date()).rejection
        == .transportSecurity(.protocolVersion(host: "api.test", required: .tls12, found: .tls11)))
    // TLS 1.3 suites are all AEAD with forward secrecy; the policy off judges nothing.
    #expect(ConnectionVerdict.judge(facts(version: 0x0304, cipher: nil), under: policy(), at: Date()).rejection == nil)
    #expect(
      ConnectionVerdict.judge(facts(version: 0x0302, cipher: cbc), under: policy(transportSecurity: nil), at: Date()).rejection
        == nil)
  }

  @Test func transportSecurityJudgesTheVerifiedChainsKeysAndDigests() throws {
    let weakLeaf = try TestPKI(leafSpec: { $0.keyType = .rsa1024 })
    #expect(
      ConnectionVerdict.judge(facts(chain: weakLeaf.leaf.chain), under: policy(), at: Date()).rejection
        == .transportSecurity(.leafKey(host: "api.test", found: "RSA-1024")))
    let sha1 = try TestPKI(leafSpec: { $0.digest = .sha1 })
    #expect(
      ConnectionVerdict.judge(facts(chain: sha1.leaf.chain), under: policy(), at: Date()).rejection
        == .transportSecurity(.signatureHash(host: "api.test", certificate: "\"api.test\"", found: "SHA-1")))
    var relaxed = CNTransportSecurityException()
    relaxed.allowsWeakCertificates = true
    #expect(
      ConnectionVerdict.judge(facts(chain: sha1.leaf.chain), under: policy(transportSecurity: relaxed), at: Date()).rejection
        == nil)
  }

  @Test func onlyANewConnectionReportsWhatTheServerPresented() throws {
    let presented = Array(chain.dropLast())
    #expect(ConnectionVerdict.judge(facts(.new, presented: presented), under: policy(), at: Date()).presentedChain == presented)
    #expect(ConnectionVerdict.judge(facts(.resumed, presented: presented), under: policy(), at: Date()).presentedChain.isEmpty)
    #expect(ConnectionVerdict.judge(facts(.reused, presented: presented), under: policy(), at: Date()).presentedChain.isEmpty)
  }

  @Test func openSSLsRefusalsAreNamed() {
    let strict = policy()
    let relaxed = policy(transportSecurity: nil)
    #expect(ConnectionVerdict.error(for: .expired, under: strict) == .certificateExpired(host: "api.test"))
    #expect(ConnectionVerdict.error(for: .hostnameMismatch, under: strict) == .hostnameMismatch(host: "api.test"))
    #expect(
      ConnectionVerdict.error(for: .leafKeyTooSmall(found: "RSA-1024"), under: strict)
        == .transportSecurity(.leafKey(host: "api.test", found: "RSA-1024")))
    #expect(
      ConnectionVerdict.error(for: .leafKeyTooSmall(found: "RSA-1024"), under: relaxed)
        == .untrustedChain(host: "api.test", reason: "the leaf key (RSA-1024) is too small"))
    let refused = HandshakeFailureFacts(verificationFailure: .untrusted(reason: "unable to get local issuer certificate"))
    let judgement = ConnectionVerdict.judgeRefusedChain(refused, under: strict)
    #expect(judgement?.rejection == .untrustedChain(host: "api.test", reason: "unable to get local issuer certificate"))
    #expect(ConnectionVerdict.judgeRefusedChain(HandshakeFailureFacts(), under: strict) == nil)
  }

  @Test func aServerBelowTheMinimumVersionIsAViolation() {
    let strict = policy()
    #expect(
      ConnectionVerdict.versionViolation(HandshakeFailureFacts(serverHelloVersion: 0x0302), under: strict, offered: .tls12)
        == .protocolVersion(host: "api.test", required: .tls12, found: .tls11))
    #expect(
      ConnectionVerdict.versionViolation(HandshakeFailureFacts(serverRefusedVersions: true), under: strict, offered: .tls12)
        == .protocolVersion(host: "api.test", required: .tls12, found: nil))
    // Refusing a TLS 1.3-only offer says nothing about versions the policy allows.
    #expect(
      ConnectionVerdict.versionViolation(HandshakeFailureFacts(serverRefusedVersions: true), under: strict, offered: .tls13)
        == nil)
  }
}
#endif
