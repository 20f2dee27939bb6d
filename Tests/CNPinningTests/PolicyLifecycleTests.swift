// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Enterprise policy lifecycle")
struct PolicyLifecycleTests {
  static let keys = try! PolicyKeyPair(.p256, slot: 43)

  /// App pins: api.test and auth.test pinned to the genuine PKI; other.test unpinned.
  static func manager(clockSkew: TimeInterval = 0) throws -> CNPinningManager {
    let appChain = try CNChain([
      CNChainLink(.prefix, "Genuine Root"), CNChainLink(.prefix, "Genuine CA"), CNChainLink(.suffix, ".test"),
    ])
    return try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([appChain]), "auth.test": CNConfiguration([appChain]),
        "mail.test": CNConfiguration([appChain]),
      ],
      enterprise: CNEnterpriseOptions(authenticationHost: "Auth.Test.", policySigningKey: keys.publicKey, clockSkew: clockSkew))
  }

  static func chain(root: String, intermediate: String, leaf: String) throws -> [CNCertificate] {
    try TestIdentity.root(root).issueIntermediate(intermediate).issueLeaf(leaf).chain
  }

  static let inspection =
    #""*": [[{"type": "exact", "value": "Inspection Root"}, {"type": "exact", "value": "Inspection CA"}, {"type": "suffix", "value": ".test"}]]"#

  /// The payload takes the 2026 forms too: a leaf by its subjectAltName (a CN-less leaf) under
  /// a chain with a CA that may be the anchor, in each shape; its canonical content tells a
  /// chain with `mayBeAnchor` from the same chain without.
  @Test func aPolicyPinsCNLessLeavesInEveryShape() throws {
    let manager = try Self.manager()
    let root = try TestIdentity.root("Inspection Root")
    let ca = try root.issueIntermediate("Inspection CA")
    var spec = TestCertificateSpec.leaf("unused", dnsNames: ["api.test"])
    spec.subject = []
    let leaf = try ca.issue(spec)
    let payload = policyPayload(
      #""api.test": [[{"type": "exact", "value": "Inspection Root"}, {"type": "exact", "value": "Inspection CA", "mayBeAnchor": true}, {"type": "subjectAltName", "value": "api.test"}]]"#
    )
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(payload))
    #expect(manager.evaluate(host: "api.test", chain: leaf.chain).acceptedMatch?.source == .enterprisePolicy)
    let anchoredAtCA = [leaf.certificate, ca.certificate]
    #expect(manager.evaluate(host: "api.test", chain: anchoredAtCA).acceptedMatch?.shape?.links.count == 2)
    let withoutMark = try CNEnterprisePolicy(
      token: try Self.keys.sign(payload.replacingOccurrences(of: #", "mayBeAnchor": true"#, with: "")), key: Self.keys.publicKey)
    let withMark = try CNEnterprisePolicy(token: try Self.keys.sign(payload), key: Self.keys.publicKey)
    #expect(withMark.issuedAt == withoutMark.issuedAt)
    #expect(withMark.contentSHA256 != withoutMark.contentSHA256)
  }

  @Test func aPolicyAddsChainsForPinnedHostsOnly() throws {
    let manager = try Self.manager()
    let inspected = try Self.chain(root: "Inspection Root", intermediate: "Inspection CA", leaf: "api.test")
    #expect(!manager.evaluate(host: "api.test", chain: inspected).allowsConnection)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(Self.inspection)))
    let match = try #require(
      manager.evaluate(host: "api.test", chain: inspected).acceptedMatch, "the policy's chain should be accepted")
    #expect(match.source == .enterprisePolicy)
    // The policy never pins a new host, and never applies to the authentication host.
    #expect(manager.evaluate(host: "other.test", chain: inspected) == .notPinned)
    let auth = try Self.chain(root: "Inspection Root", intermediate: "Inspection CA", leaf: "auth.test")
    let failure = try #require(
      manager.evaluate(host: "AUTH.test", chain: auth).rejection, "the authentication host must keep its own pins")
    #expect(failure.enterpriseMismatches.isEmpty)
    // The app's own chain still works alongside.
    let genuine = try Self.chain(root: "Genuine Root", intermediate: "Genuine CA", leaf: "api.test")
    let appMatch = try #require(
      manager.evaluate(host: "api.test", chain: genuine).acceptedMatch, "the app's chain should still be accepted")
    #expect(appMatch.source == .app)
  }

  /// A policy for the authentication host alone (a rescue for a locked-out login host), or for
  /// hosts the app does not pin, changes nothing: applying it is an error, not "applied"
  /// (issue 65, item 6).
  @Test(arguments: [
    #""auth.test": [[{"type": "exact", "value": "Inspection Root"}]]"#,
    #""Auth.Test.": [[{"type": "exact", "value": "Inspection Root"}]], "other.test": [[{"type": "exact", "value": "Inspection Root"}]]"#,
  ])
  func aPolicyThatChangesNoHostIsAnError(_ hosts: String) throws {
    let manager = try Self.manager()
    let error = #expect(throws: CNPolicyError.self) {
      try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(hosts)))
    }
    #expect(error?.code == .changesNoHost)
    #expect(error?.description.contains("authentication host") == true, "\(String(describing: error))")
    #expect(manager.enterprisePolicy == nil && manager.policyHighWaterMark == nil)
    // The wildcard changes the other pinned hosts.
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(Self.inspection)))
  }

  @Test func anExactEntryWinsOverTheWildcard() throws {
    let manager = try Self.manager()
    let payload = policyPayload(
      #""*": [[{"type": "exact", "value": "Wildcard Root"}, {"type": "exact", "value": "Wildcard CA"}, {"type": "suffix", "value": ".test"}]], "api.test": [[{"type": "exact", "value": "Api Root"}, {"type": "exact", "value": "Api CA"}, {"type": "exact", "value": "api.test"}]]"#
    )
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(payload))
    let wildcard = try Self.chain(root: "Wildcard Root", intermediate: "Wildcard CA", leaf: "api.test")
    let specific = try Self.chain(root: "Api Root", intermediate: "Api CA", leaf: "api.test")
    #expect(manager.evaluate(host: "api.test", chain: specific).allowsConnection)
    let failure = try #require(
      manager.evaluate(host: "api.test", chain: wildcard).rejection,
      "api.test has its own entry, so the wildcard does not apply to it")
    #expect(failure.enterpriseMismatches.map(\.chain.links.first?.value) == ["Api Root"])
    #expect(failure.description.contains("enterprise policy chain 0"))
    #expect(
      manager.evaluate(
        host: "mail.test", chain: try Self.chain(root: "Wildcard Root", intermediate: "Wildcard CA", leaf: "mail.test")
      ).allowsConnection)
  }

  @Test func expiredPoliciesStopApplying() throws {
    let manager = try Self.manager()
    let issued = Date().addingTimeInterval(-60)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issued, lifetime: 3600, Self.inspection)))
    let inspected = try Self.chain(root: "Inspection Root", intermediate: "Inspection CA", leaf: "api.test")
    #expect(manager.evaluate(host: "api.test", chain: inspected).allowsConnection)
    #expect(!manager.evaluate(host: "api.test", chain: inspected, at: issued.addingTimeInterval(3600)).allowsConnection)
    #expect(!manager.evaluate(host: "api.test", chain: inspected, at: issued.addingTimeInterval(-1)).allowsConnection)
    #expect(manager.enterprisePolicyExpiry == issued.addingTimeInterval(3600).rounded())
  }

  @Test func lifecycleRules() throws {
    let manager = try Self.manager()
    #expect(manager.enterprisePolicyIssuedAt == nil)
    #expect(policyError { try manager.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload())) } == .noPolicyApplied)
    let first = Date().addingTimeInterval(-100).rounded()
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: first)))
    #expect(manager.enterprisePolicyIssuedAt == first)
    #expect(policyError { try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload())) } == .policyAlreadyApplied)
    // Rollback: an older policy is refused and the applied one stays.
    let older = first.addingTimeInterval(-50)
    #expect(
      policyError { try manager.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: older))) }
        == .olderThanAppliedPolicy(applied: first, offered: older))
    #expect(manager.enterprisePolicyIssuedAt == first)
    // A failed verification leaves state unchanged too.
    #expect(policyError { try manager.refreshEnterprisePolicy(with: Data("x.y.z".utf8)) } != nil)
    #expect(manager.enterprisePolicyIssuedAt == first)
    let newer = first.addingTimeInterval(30)
    try manager.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: newer)))
    #expect(manager.enterprisePolicyIssuedAt == newer)
    manager.signOut()
    #expect(manager.enterprisePolicyIssuedAt == nil)
    #expect(policyError { try manager.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload())) } == .noPolicyApplied)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload()))
  }

  /// Anti-rollback remembers the newest policy accepted, across signOut: a stolen older policy
  /// (still inside its window) cannot be applied after a sign-out, nor, since issue 65, the
  /// policy signed out of; one issued after the sign-out can.
  @Test func rollbackIsRefusedAcrossSignOut() throws {
    let manager = try Self.manager()
    let older = try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-120), Self.inspection))
    let newer = try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-60), Self.inspection))
    try manager.applyEnterprisePolicy(with: newer)
    manager.signOut()
    let refusal = #expect(throws: CNPolicyError.self) { try manager.applyEnterprisePolicy(with: older) }
    #expect(refusal?.code == .issuedBeforeSignOut, "an older policy was applied after signOut")
    let same = #expect(throws: CNPolicyError.self) { try manager.applyEnterprisePolicy(with: newer) }
    #expect(same?.code == .issuedBeforeSignOut, "the policy signed out of was applied again")
    #expect(manager.enterprisePolicy == nil)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date(), Self.inspection)))
    #expect(manager.enterprisePolicyIssuedAt != nil)
  }

  @Test func aPolicyReissuedWithTheSameIssueTimeMustBeTheSame() throws {
    let manager = try Self.manager()
    let issuedAt = Date().addingTimeInterval(-60)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issuedAt, Self.inspection)))
    let other = try Self.keys.sign(
      policyPayload(issuedAt: issuedAt, #""api.test": [[{"type": "exact", "value": "Other Root"}]]"#))
    let refusal = #expect(throws: CNPolicyError.self) { try manager.refreshEnterprisePolicy(with: other) }
    #expect(
      refusal.map(\.isReissuedWithDifferentContent) == true, "a different policy with the same iat replaced the applied one")
    try manager.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issuedAt, Self.inspection)))
  }

  @Test func aPersistedHighWaterMarkCarriesOverToANewManager() throws {
    let first = try Self.manager()
    try first.applyEnterprisePolicy(
      with: try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-60), Self.inspection)))
    let mark = try #require(first.policyHighWaterMark)
    let restored = try JSONDecoder().decode(CNPolicyHighWaterMark.self, from: try JSONEncoder().encode(mark))
    let second = try Self.manager()
    second.raisePolicyHighWaterMark(to: restored)
    let older = try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-120), Self.inspection))
    let refusal = #expect(throws: CNPolicyError.self) { try second.applyEnterprisePolicy(with: older) }
    #expect(refusal.map(\.isOlderThanAccepted) == true, "the restored mark was ignored")
  }

  @Test func managersWithoutAKeyRefusePolicies() throws {
    let manager = try CNPinningManager(configuration: ["api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "A")])])])
    #expect(policyError { try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload())) } == .noSigningKey)
    #expect(throws: CNConfigurationError.self) {
      try CNPinningManager(
        configuration: ["a.test": CNConfiguration([try CNChain([CNChainLink(.exact, "A")])])],
        enterprise: CNEnterpriseOptions(authenticationHost: "https://auth", policySigningKey: Self.keys.publicKey))
    }
    #expect(throws: CNConfigurationError(problems: [.init(path: "clockSkew", error: .clockSkewOutOfRange(3600))])) {
      try Self.manager(clockSkew: 3600)
    }
  }

  @Test(.tags(.concurrency)) func racingAppliesCannotBothWin() async throws {
    for _ in 0..<20 {
      let manager = try Self.manager()
      let tokens = try (0..<16).map { _ in try Self.keys.sign(policyPayload()) }
      let winners = await withTaskGroup(of: Bool.self) { group in
        for token in tokens { group.addTask { (try? manager.applyEnterprisePolicy(with: token)) != nil } }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
      }
      #expect(winners == 1)
    }
  }

  @Test(.tags(.concurrency)) func aRefreshRacingSignOutCannotBringThePolicyBack() async throws {
    let refresh = try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-10)))
    for _ in 0..<100 {
      let manager = try Self.manager()
      try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-20))))
      await withTaskGroup(of: Void.self) { group in
        group.addTask { manager.signOut() }
        group.addTask { try? manager.refreshEnterprisePolicy(with: refresh) }
      }
      // Whatever the order, sign-out came last or the refresh found nothing to refresh.
      #expect(manager.enterprisePolicyIssuedAt == nil, "a refresh brought a policy back after sign-out")
    }
  }

  @Test(.tags(.concurrency)) func concurrentApplyRefreshSignOutAndEvaluationStress() async throws {
    let manager = try Self.manager()
    let inspected = try Self.chain(root: "Inspection Root", intermediate: "Inspection CA", leaf: "api.test")
    let tokens = try (0..<8).map {
      try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(Double(-100 + $0)), Self.inspection))
    }
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<8 {
        group.addTask {
          for step in 0..<200 {
            switch (worker + step) % 4 {
            case 0: try? manager.applyEnterprisePolicy(with: tokens[step % tokens.count])
            case 1: try? manager.refreshEnterprisePolicy(with: tokens[(step + worker) % tokens.count])
            case 2: manager.signOut()
            default:
              let result = manager.evaluate(host: "api.test", chain: inspected)
              if case .accepted(let match) = result { #expect(match.source == .enterprisePolicy) }
            }
          }
        }
      }
    }
    manager.signOut()
    #expect(manager.enterprisePolicyIssuedAt == nil)
  }
}
#endif
