// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) @testable import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The value a connection-keeping transport (Apple's URLSession) keys its sessions on: it must
/// change whenever the pins in force may have changed, and only then, and only ever grow (so that
/// a request that read the generation before a change never swaps the transport back).
@Suite struct PolicyGenerationTests {
  static let keys = try! PolicyKeyPair(.p256, slot: 44)
  static let chain = try! CNChain([CNChainLink(.prefix, "Genuine Root"), CNChainLink(.suffix, ".test")])

  @Test func enterpriseApplyRefreshAndSignOutEachChangeIt() throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let now = Date()
    let initial = manager.policyGeneration(at: now)
    #expect(manager.policyGeneration(at: now) == initial)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: now.addingTimeInterval(-60))), at: now)
    let applied = manager.policyGeneration(at: now)
    #expect(applied > initial)
    try manager.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: now.addingTimeInterval(-30))), at: now)
    let refreshed = manager.policyGeneration(at: now)
    #expect(refreshed > applied)
    manager.signOut()
    #expect(manager.policyGeneration(at: now) > refreshed)
    // A refused policy changes nothing.
    let beforeRefusal = manager.policyGeneration(at: now)
    #expect(throws: CNPolicyError.self) { try manager.applyEnterprisePolicy(with: Data("not a token".utf8), at: now) }
    #expect(manager.policyGeneration(at: now) == beforeRefusal)
  }

  @Test func itChangesWhenAHostsPinsExpireAndNotBefore() throws {
    let expiry = Date(timeIntervalSince1970: 1_900_000_000)
    let manager = try CNPinningManager(configuration: [
      "api.test": CNConfiguration(chains: [Self.chain], expirationDate: expiry),
      "other.test": CNConfiguration([Self.chain]),
    ])
    let before = manager.policyGeneration(at: expiry.addingTimeInterval(-1))
    #expect(manager.policyGeneration(at: expiry.addingTimeInterval(-3600)) == before)
    // Evaluation treats the host as unpinned from the expiry on; the generation changes with it.
    #expect(manager.evaluate(host: "api.test", chain: [], at: expiry) == .notPinned)
    #expect(manager.policyGeneration(at: expiry) > before)
    #expect(manager.policyGeneration(at: expiry.addingTimeInterval(3600)) == manager.policyGeneration(at: expiry))
  }

  @Test func itChangesWhenAnAppliedPolicysWindowCloses() throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let issued = Date().addingTimeInterval(-60)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issued, lifetime: 3600)))
    let open = manager.policyGeneration(at: issued.addingTimeInterval(10))
    #expect(manager.policyGeneration(at: issued.addingTimeInterval(3599)) == open)
    #expect(manager.policyGeneration(at: issued.addingTimeInterval(3600)) > open)
  }

  /// A host's report-only window ending changes what evaluation decides (a failure reported
  /// becomes a refusal), so it changes the generation: before, only the policy's own window
  /// counted, and a URLSession connection accepted while the host's failures were only reported
  /// stayed in use after enforcement resumed (pinning off past the window the policy signed).
  @Test func itChangesWhenAHostsReportOnlyWindowEnds() throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let issued = Date().addingTimeInterval(-60)
    let until = Int(issued.timeIntervalSince1970) + 600
    try manager.applyEnterprisePolicy(
      with: try Self.keys.sign(
        #"{"iat": \#(Int(issued.timeIntervalSince1970)), "exp": \#(until + 3000), "reportOnly": {"api.test": \#(until)}}"#))
    let end = Date(timeIntervalSince1970: TimeInterval(until))
    let reporting = manager.policyGeneration(at: end.addingTimeInterval(-1))
    #expect(manager.policyGeneration(at: issued.addingTimeInterval(10)) == reporting)
    #expect(manager.policyGeneration(at: end) > reporting)
    #expect(manager.policyGeneration(at: end.addingTimeInterval(60)) == manager.policyGeneration(at: end))
  }

  /// The public signal for apps that pin their own URLSession: after signOut or a narrower
  /// policy, requests kept flowing over connections accepted under the old pins. The tracker
  /// starts afresh once per change, never for a stale revision.
  @Test func thePinsRevisionTellsAnAppWhenToStartAfresh() async throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let tracker = PinsRevisionTracker()
    let flushes = Locked(0)
    let flush: @Sendable () async -> Void = { flushes.withLock { $0 += 1 } }
    await tracker.startAfresh(at: manager.pinsRevision, flush: flush)
    await tracker.startAfresh(at: manager.pinsRevision, flush: flush)
    #expect(flushes.withLock { $0 } == 0, "nothing was accepted under older pins yet")
    let before = manager.pinsRevision
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-60))))
    #expect(manager.pinsRevision > before)
    await tracker.startAfresh(at: manager.pinsRevision, flush: flush)
    await tracker.startAfresh(at: manager.pinsRevision, flush: flush)
    #expect(flushes.withLock { $0 } == 1, "once per change")
    manager.signOut()
    await tracker.startAfresh(at: manager.pinsRevision, flush: flush)
    // A stale revision (read before the change, arriving after) does not move it back.
    await tracker.startAfresh(at: before, flush: flush)
    await tracker.startAfresh(at: manager.pinsRevision, flush: flush)
    #expect(flushes.withLock { $0 } == 2)
  }

  /// A tracker seeded when the session starts pinning flushes at its first call after a change
  /// (issue 53, L12: before, that first call only took note, and connections accepted under the
  /// older pins stayed in use).
  @Test func aSeededTrackerFlushesAtItsFirstCallAfterAChange() async throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let tracker = PinsRevisionTracker()
    tracker.seed(manager.pinsRevision)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-60))))
    let flushes = Locked(0)
    await tracker.startAfresh(at: manager.pinsRevision) { flushes.withLock { $0 += 1 } }
    #expect(flushes.withLock { $0 } == 1)
    tracker.seed(manager.pinsRevision)
    await tracker.startAfresh(at: manager.pinsRevision) { flushes.withLock { $0 += 1 } }
    #expect(flushes.withLock { $0 } == 1, "a later seed changes nothing")
  }

  /// What `cnPinningManager`'s setter and `cnStartAfreshIfPinsChanged` do on Apple platforms
  /// (issue 53, item 3: shared, where they were Apple-only): setting a manager seeds the tracker,
  /// setting none does not, and a session without a manager never flushes.
  @Test func aSessionsManagerSeedsItsTrackerAndNoManagerNeverFlushes() async throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let (seeded, unseeded) = (PinsRevisionTracker(), PinsRevisionTracker())
    seeded.pinning(with: manager, hasDelegate: true)
    unseeded.pinning(with: nil, hasDelegate: true)
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-60))))
    let flushes = Locked(0)
    await seeded.startAfresh(with: manager) { flushes.withLock { $0 += 1 } }
    #expect(flushes.withLock { $0 } == 1)
    await unseeded.startAfresh(with: manager) { flushes.withLock { $0 += 1 } }
    #expect(flushes.withLock { $0 } == 1, "an unseeded tracker only takes note at its first call")
    manager.signOut()
    await seeded.startAfresh(with: nil) { flushes.withLock { $0 += 1 } }
    #expect(flushes.withLock { $0 } == 1, "no manager: nothing to start afresh for")
  }

  /// A caller that arrives while the flush runs waits for it: before, the revision was recorded
  /// before the flush ended, and a concurrent caller went on over an old connection.
  @Test(.tags(.concurrency))
  func everyCallerWaitsForTheFlushInProgress() async throws {
    let manager = try CNPinningManager(
      configuration: ["api.test": CNConfiguration([Self.chain])],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
    let tracker = PinsRevisionTracker()
    await tracker.startAfresh(at: manager.pinsRevision) {}
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date().addingTimeInterval(-60))))
    let revision = manager.pinsRevision
    let flushed = Locked(false)
    let early = Locked<[Bool]>([])
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await tracker.startAfresh(at: revision) {
            try? await Task.sleep(for: .milliseconds(200))
            flushed.withLock { $0 = true }
          }
          early.withLock { $0.append(flushed.withLock { $0 }) }
        }
      }
    }
    #expect(early.withLock { $0 } == Array(repeating: true, count: 8), "a caller returned before the flush was done")
  }
}
#endif
