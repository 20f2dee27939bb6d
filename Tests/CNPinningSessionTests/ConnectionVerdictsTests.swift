@_spi(Locking) import CNPinning
import Foundation
import Testing

@testable import CNPinningSession

#if CNPINNING_LINUX_BACKEND
import CNPinningTestKit
@testable import CNPinningCurl
#endif

/// The Apple transport's verdicts, bound to the connections they were made on, run through the
/// sequences of challenges and metrics URLSession produces. Before, a connection's judgement was
/// remembered only after the task that opened it completed successfully: every task multiplexed
/// beside it that finished first, or came after an opener that failed, was refused after its
/// request was sent; a resumed, never-judged connection stayed pooled and passed later tasks as
/// reused with another connection's chain; missing metrics passed too.
@Suite struct ConnectionVerdictsTests {
  static let accepted = Judgement(use: .new, verifiedChain: [], presentedChain: [], pinning: .notPinned, rejection: nil)
  static let first = ConnectionID(local: "10.0.0.2", localPort: 50_000, remote: "192.0.2.1", remotePort: 443)!
  static let second = ConnectionID(local: "10.0.0.2", localPort: 50_001, remote: "192.0.2.1", remotePort: 443)!

  static func facts(_ connection: ConnectionID?, reused: Bool, sent: Date? = nil) -> TransactionFacts {
    TransactionFacts(
      isReusedConnection: reused, tlsVersion: 0x0304, applicationProtocol: "h2", requestStart: sent, connection: connection)
  }

  /// A task's judgement as the transport asks for it once the task has ended (`judge`).
  static func judge(
    _ verdicts: ConnectionVerdicts, task: Int, facts: TransactionFacts?, requestTimeout: BoundedInterval? = nil,
    longestWait: BoundedInterval = ConnectionVerdicts.longestWait
  ) async -> ConnectionVerdicts.Completion {
    await verdicts.judge(
      task: task, host: "api.test", port: 443, manager: nil, unpinnedHosts: .allow, facts: facts, mustBeJudged: true,
      requestTimeout: requestTimeout, longestWait: longestWait)
  }

  static func complete(
    _ verdicts: ConnectionVerdicts, task: Int, host: String = "api.test", facts: TransactionFacts?,
    manager: CNPinningManager? = nil, final: Bool = true
  ) -> ConnectionVerdicts.Completion {
    verdicts.complete(
      task: task, host: host, port: 443, manager: manager, unpinnedHosts: .allow, facts: facts, mustBeJudged: true,
      final: final)
  }

  @Test func aChallengedTaskKeepsItsJudgementWithTheVersionsFromItsMetrics() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    let done = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    #expect(done.refusal == nil && done.judgements.count == 1 && done.judgements[0].use == .new)
    #expect(done.judgements[0].protocolVersion == 0x0304 && done.judgements[0].applicationProtocol == "h2")
    #expect(verdicts.counts.bound == 1 && verdicts.counts.running == 0)
  }

  /// Small requests beside a large one on one HTTP/2 connection finish first: they wait for the
  /// opener challenged before they were sent and stand on its verdict once it binds their very
  /// connection (issue 66, N2: before, any running opener for the host vouched for them at once,
  /// whatever their connection).
  @Test(.tags(.concurrency)) func tasksFinishingBeforeTheOpenerWaitForItAndStandOnItsConnection() async {
    let verdicts = ConnectionVerdicts()
    let start = Date()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443, time: start)
    let early = (2...5).map { task in
      Task { await Self.judge(verdicts, task: task, facts: Self.facts(Self.first, reused: true, sent: start + 0.001)) }
    }
    try? await Task.sleep(for: .milliseconds(50))
    #expect(Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false)).refusal == nil)
    for task in early {
      let done = await task.value
      #expect(done.refusal == nil && done.judgements.map(\.use) == [.reused], "\(done)")
    }
    #expect(Self.complete(verdicts, task: 6, facts: Self.facts(Self.first, reused: true)).refusal == nil)
  }

  /// Review N2: T1 runs on C1; URLSession opened C2 without a challenge (a resumed TLS session)
  /// for T2, which waits for T1; T3 reuses C2. T3 is refused: nothing bound C2. Before, T1's
  /// running verdict, kept by host and port, accepted T3 and its bytes reached the app.
  @Test(.tags(.concurrency)) func aTaskOnAConnectionNobodyJudgedIsRefusedWhileAnotherOpenerRuns() async {
    let verdicts = ConnectionVerdicts()
    let start = Date()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443, time: start)
    let t2 = Task { await Self.judge(verdicts, task: 2, facts: Self.facts(Self.second, reused: false, sent: start + 0.001)) }
    try? await Task.sleep(for: .milliseconds(20))
    #expect(Self.complete(verdicts, task: 3, facts: Self.facts(Self.second, reused: true)).refusal != nil)
    // Through the transport's path: it waits for T1, and is refused when T1 binds C1.
    let t4 = Task { await Self.judge(verdicts, task: 4, facts: Self.facts(Self.second, reused: true, sent: start + 0.002)) }
    try? await Task.sleep(for: .milliseconds(20))
    #expect(Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false)).refusal == nil)
    #expect(await t2.value.refusal?.code == .connectionNotJudged)
    let t4Done = await t4.value
    #expect(t4Done.refusal?.code == .connectionNotJudged && t4Done.retire, "\(t4Done)")
    #expect(Self.complete(verdicts, task: 5, facts: Self.facts(Self.first, reused: true)).refusal == nil)
  }

  /// Review N4: a waiter held behind an opener that does not end (a server-sent-events stream)
  /// lets go at once when its task is cancelled, or when the URLSession is invalidated (which
  /// cancels the lease's work), and is then refused as cancelled, with nothing to report and the
  /// URLSession kept. Before, it waited for the opener or the whole request timeout.
  /// (The bound is an hour here, so that only the cancellation can end the wait; the 60-s bound
  /// below is the test's liveness, not a timing.)
  @Test(.tags(.concurrency)) func aWaitEndsAtOnceOnCancellationAndInvalidation() async throws {
    let verdicts = ConnectionVerdicts()
    let start = Date()
    let hour = BoundedInterval(3600)!
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443, time: start)
    let results = Locked<[Int: ConnectionVerdicts.Completion]>([:])
    let waiter = Task {
      let done = await Self.judge(
        verdicts, task: 2, facts: Self.facts(Self.second, reused: false, sent: start + 0.001), longestWait: hour)
      results.withLock { $0[2] = done }
    }
    try await Task.sleep(for: .milliseconds(50))
    waiter.cancel()
    #expect(await eventually(within: 60) { results.withLock { $0[2] != nil } })
    let cancelled = try #require(results.withLock { $0[2] })
    #expect(cancelled.refusal?.code == .cancelled && !cancelled.retire && cancelled.judgements.isEmpty, "\(cancelled)")
    // Cancelled before it began to wait: it does not wait at all.
    let early = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      let done = await Self.judge(
        verdicts, task: 3, facts: Self.facts(Self.second, reused: true, sent: start + 0.002), longestWait: hour)
      results.withLock { $0[3] = done }
    }
    #expect(await eventually(within: 60) { results.withLock { $0[3] != nil } })
    #expect(results.withLock { $0[3]?.refusal?.code } == .cancelled)

    final class Session: Sendable {}
    let rotation = SessionRotation<Session, Int, Session>(make: { Session() }, retire: { _ in }, cancel: { _ in })
    let leased = Task {
      let done = try await rotation.withSession(owner: nil, generation: nil) { _ in
        await Self.judge(
          verdicts, task: 4, facts: Self.facts(Self.second, reused: true, sent: start + 0.003), longestWait: hour)
      }
      results.withLock { $0[4] = done }
    }
    try await Task.sleep(for: .milliseconds(50))
    rotation.close()
    #expect(await eventually(within: 60) { results.withLock { $0[4] != nil } })
    #expect(results.withLock { $0[4]?.refusal?.code } == .cancelled)
    #expect(verdicts.counts.running == 1)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    _ = await (waiter.value, early.value, try? leased.value)
  }

  /// An opener that was cancelled, timed out or hit a limit still binds its verdict: the tasks
  /// that come after it on the connection are accepted.
  @Test func anOpenerThatFailedStillBindsItsVerdict() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let after = Self.complete(verdicts, task: 2, facts: Self.facts(Self.first, reused: true))
    #expect(after.refusal == nil && after.judgements.map(\.use) == [.reused])
  }

  /// A connection URLSession opened without a challenge (a resumed TLS session) is refused,
  /// saying the request was sent, and retired; later tasks on it are refused too, even with
  /// another connection's verdict at hand.
  @Test func aResumedConnectionNobodyJudgedIsRefusedAndRetired() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let resumed = Self.complete(verdicts, task: 2, facts: Self.facts(Self.second, reused: false))
    #expect(resumed.retire)
    guard case .connectionNotJudged(host: "api.test", let reason)? = resumed.refusal?.kind else {
      Issue.record("expected connectionNotJudged, got \(String(describing: resumed.refusal))")
      return
    }
    #expect(reason.contains("resumed TLS session"))
    #expect("\(resumed.refusal!)".contains("the request was sent over a connection the pins never judged"))
    #expect(Self.complete(verdicts, task: 3, facts: Self.facts(Self.second, reused: true)).refusal != nil)
    #expect(Self.complete(verdicts, task: 4, facts: Self.facts(Self.first, reused: true)).refusal == nil)
  }

  /// Metrics that never came cannot name the connection: refused for a host that must be judged.
  @Test func missingMetricsAreRefusedForAHostThatMustBeJudged() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    #expect(Self.complete(verdicts, task: 2, facts: nil).refusal?.code == .connectionNotJudged)
    let unpinned = verdicts.complete(
      task: 3, host: "other.test", port: 443, manager: nil, unpinnedHosts: .allow, facts: nil, mustBeJudged: false)
    #expect(unpinned.refusal == nil && unpinned.judgements.count == 1)
  }

  /// A stream's response comes before its metrics: judged by the opener's verdict then, and by
  /// its connection's at its end.
  @Test func aStreamIsJudgedAtItsResponseAndAgainAtItsEnd() {
    let verdicts = ConnectionVerdicts()
    #expect(Self.complete(verdicts, task: 2, facts: nil, final: false).refusal?.code == .connectionNotJudged)
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    #expect(Self.complete(verdicts, task: 3, facts: nil, final: false).refusal == nil)
    #expect(Self.complete(verdicts, task: 3, facts: Self.facts(Self.second, reused: false)).refusal != nil)
  }

  /// A stream after a finished opener, the order `data(for:)` then `bytes(for:)` or two
  /// sequential `exchange(_:)` calls make (review H1): accepted at its response, when its
  /// connection is not known yet, by the verdict bound for its host and port, and at its end by its
  /// connection's. Before, the response check never consulted bound verdicts: refused after the
  /// request was sent, and the session flushed.
  @Test func aStreamAfterAFinishedOpenerIsAcceptedAtItsResponseAndItsEnd() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    #expect(Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false)).refusal == nil)
    let head = Self.complete(verdicts, task: 2, facts: nil, final: false)
    #expect(head.refusal == nil && !head.retire, "\(String(describing: head.refusal))")
    #expect(Self.complete(verdicts, task: 2, facts: Self.facts(Self.first, reused: true)).refusal == nil)
    // Another host's verdict stands for nobody else's stream.
    #expect(Self.complete(verdicts, task: 3, host: "other.test", facts: nil, final: false).refusal != nil)
  }

  /// A new connection that gets a closed connection's local port again (review M3): URLSession
  /// opened it for this task without a challenge, so the old verdict on the same four-tuple does
  /// not judge it.
  @Test func aNewConnectionOnAClosedConnectionsAddressesIsNotJudgedByItsVerdict() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let again = Self.complete(verdicts, task: 2, facts: Self.facts(Self.first, reused: false))
    #expect(again.refusal?.code == .connectionNotJudged && again.retire)
  }

  /// One connection opened early and kept busy while more than `capacity` others are bound
  /// (review M4): the verdicts are dropped least recently used first, so its next task is still
  /// judged. Before, the bound dropped in bind order and refused it after it was sent.
  @Test func aBusyConnectionStaysJudgedWhileManyNewerAreBound() {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 0, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 0, facts: Self.facts(Self.first, reused: false))
    var task = 1
    for other in 0..<(ConnectionVerdicts.capacity + 300) {
      verdicts.challenged(Self.accepted, task: task, host: "h\(other).test", port: 443)
      let connection = ConnectionID(local: "10.0.1.2", localPort: other, remote: "192.0.2.9", remotePort: 443)
      _ = Self.complete(verdicts, task: task, host: "h\(other).test", facts: Self.facts(connection, reused: false))
      task += 1
      if other % 100 == 0 {
        let busy = Self.complete(verdicts, task: task, facts: Self.facts(Self.first, reused: true))
        #expect(busy.refusal == nil, "the busy connection was dropped after \(other) others")
        task += 1
      }
    }
    #expect(Self.complete(verdicts, task: task, facts: Self.facts(Self.first, reused: true)).refusal == nil)
    #expect(verdicts.counts.bound == ConnectionVerdicts.capacity)
  }

  /// A cold HTTP/2 burst (review M8): tasks that waited for the connection an opener was making
  /// get no challenge, and may report it as new (`isReusedConnection` is not documented for
  /// them). Such a task, ending before its opener, waits for the opener challenged before its
  /// request went out, and stands when that opener binds its very connection; before, it was
  /// refused after it was sent, and the URLSession retired.
  @Test func aColdBurstsWaiterIsJudgedByTheOpenerThatBindsItsConnection() async {
    let verdicts = ConnectionVerdicts()
    let challengedAt = Date()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443, time: challengedAt)
    let sent = challengedAt.addingTimeInterval(0.001)
    let waiter = Task { await Self.judge(verdicts, task: 2, facts: Self.facts(Self.first, reused: false, sent: sent)) }
    // The waiter has ended; its opener is still running, so it is not judged yet.
    try? await Task.sleep(for: .milliseconds(50))
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let done = await waiter.value
    #expect(done.refusal == nil, "\(String(describing: done.refusal))")
    #expect(verdicts.counts.running == 0)
  }

  /// The same wait, and every way it must still refuse: the opener bound another connection; the
  /// only opener was challenged after the request went out (it cannot have opened that
  /// connection: a closed connection's ports coming again, M3); the opener never ends within the
  /// patience.
  @Test func aColdBurstsWaiterOnAnotherConnectionIsStillRefused() async {
    let verdicts = ConnectionVerdicts()
    let start = Date()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443, time: start)
    let elsewhere = Task {
      await Self.judge(verdicts, task: 2, facts: Self.facts(Self.second, reused: false, sent: start.addingTimeInterval(1)))
    }
    try? await Task.sleep(for: .milliseconds(20))
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    #expect(await elsewhere.value.refusal?.code == .connectionNotJudged)

    // Challenged after the request went out: not waited for, and never vouching for it, even
    // when it binds the same addresses and ports.
    verdicts.challenged(Self.accepted, task: 3, host: "api.test", port: 443, time: start.addingTimeInterval(10))
    let early = Task {
      await Self.judge(
        verdicts, task: 4, facts: Self.facts(Self.first, reused: false, sent: start.addingTimeInterval(5)),
        requestTimeout: BoundedInterval(5))
    }
    try? await Task.sleep(for: .milliseconds(20))
    _ = Self.complete(verdicts, task: 3, facts: Self.facts(Self.first, reused: false))
    #expect(await early.value.refusal?.code == .connectionNotJudged)

    // An opener that does not end within the patience: refused when it runs out.
    verdicts.challenged(Self.accepted, task: 5, host: "api.test", port: 443, time: start)
    let impatient = await Self.judge(
      verdicts, task: 6,
      facts: Self.facts(
        ConnectionID(local: "10.0.0.2", localPort: 50_002, remote: "192.0.2.1", remotePort: 443)!, reused: false,
        sent: start.addingTimeInterval(1)),
      requestTimeout: BoundedInterval(0.05))
    #expect(impatient.refusal?.code == .connectionNotJudged)
    _ = Self.complete(verdicts, task: 5, facts: Self.facts(Self.second, reused: false))
    #expect(verdicts.counts.running == 0)
  }

  /// Metrics delivered after the task completed (Apple states no order; review M7): the task is
  /// judged on them once they come, within `FactsArrival.patience`. Before, the facts were read at
  /// completion: a task without its own challenge was refused after it was sent.
  @Test func metricsAfterCompletionStillJudgeTheTask() async {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let arrival = FactsArrival()
    let late = Task {
      try? await Task.sleep(for: .milliseconds(100))
      arrival.deliver(Self.facts(Self.first, reused: true))
    }
    // didCompleteWithError has come: the transport judges the task now.
    let done = Self.complete(verdicts, task: 2, facts: await arrival.facts())
    #expect(done.refusal == nil, "\(String(describing: done.refusal))")
    await late.value
    // Metrics that never come: after the wait, judged without them (refused: fail closed).
    let never = FactsArrival()
    #expect(await never.facts(waitingUpTo: .milliseconds(50)) == nil)
    #expect(Self.complete(verdicts, task: 3, facts: nil).refusal?.code == .connectionNotJudged)
    // Metrics that came first are there at once.
    let early = FactsArrival()
    early.deliver(Self.facts(Self.first, reused: true))
    #expect(await early.facts(waitingUpTo: .zero) == Self.facts(Self.first, reused: true))
  }

  @Test func theVerdictsKeptAreBounded() {
    let verdicts = ConnectionVerdicts()
    for task in 0..<(ConnectionVerdicts.capacity + 100) {
      verdicts.challenged(Self.accepted, task: task, host: "h\(task).test", port: 443)
      let connection = ConnectionID(local: "10.0.0.2", localPort: task, remote: "192.0.2.1", remotePort: 443)
      _ = verdicts.complete(
        task: task, host: "h\(task).test", port: 443, manager: nil, unpinnedHosts: .allow,
        facts: Self.facts(connection, reused: false), mustBeJudged: true)
    }
    #expect(verdicts.counts.bound == ConnectionVerdicts.capacity && verdicts.counts.running == 0)
    // Refused connections are bounded too (review L5).
    for port in 0..<(ConnectionVerdicts.capacity + 100) {
      let connection = ConnectionID(local: "10.0.2.2", localPort: port, remote: "192.0.2.7", remotePort: 443)
      _ = Self.complete(verdicts, task: 100_000 + port, host: "unjudged.test", facts: Self.facts(connection, reused: true))
    }
    #expect(verdicts.counts.refused == ConnectionVerdicts.capacity)
  }

  /// Through a relay (iCloud Private Relay), tasks to different hosts share one transport
  /// connection: its addresses and ports alone would let host A's verdict judge host B, on A's
  /// chain (a false pinMismatch, reported as an attack), and a TLS session to B nobody judged
  /// pass (issue 53, M2). With the origin in the identity each host stands on its own verdict.
  @Test func hostsSharingAProxiedConnectionAreEachJudgedByTheirOwnVerdict() {
    let relay = { (origin: String) in
      ConnectionID(local: "10.0.0.2", localPort: 50_100, remote: "172.16.0.1", remotePort: 443, proxiedTo: origin)!
    }
    #expect(relay("a.test:443") != relay("b.test:443"))
    #expect(ConnectionID(local: "10.0.0.2", localPort: 1, remote: "172.16.0.1", remotePort: 443, proxiedTo: .some(nil)) == nil)
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "a.test", port: 443)
    #expect(
      Self.complete(verdicts, task: 1, host: "a.test", facts: Self.facts(relay("a.test:443"), reused: false)).refusal == nil)
    // B, reusing the relay's connection without a challenge for B: not judged by A's verdict.
    let b = Self.complete(verdicts, task: 2, host: "b.test", facts: Self.facts(relay("b.test:443"), reused: true))
    #expect(b.refusal?.code == .connectionNotJudged, "\(b)")
    // B's own opener binds B's verdict; each host's next task stands on its own.
    verdicts.challenged(Self.accepted, task: 3, host: "b.test", port: 443)
    #expect(
      Self.complete(verdicts, task: 3, host: "b.test", facts: Self.facts(relay("b.test:443"), reused: false)).refusal == nil)
    #expect(Self.complete(verdicts, task: 4, host: "b.test", facts: Self.facts(relay("b.test:443"), reused: true)).refusal == nil)
    #expect(Self.complete(verdicts, task: 5, host: "a.test", facts: Self.facts(relay("a.test:443"), reused: true)).refusal == nil)
  }

  /// A pinned host URLSession coalesced onto a connection whose chain was left to the system (an
  /// unpinned host's) is refused, and the URLSession retired so that its next request is
  /// challenged on a connection of its own (issue 53, L4: before, it stayed refused while the
  /// shared connection lived).
  @Test func aPinnedHostOnAnUnjudgedChainIsRefusedAndTheSessionRetired() throws {
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(Self.accepted, task: 1, host: "open.test", port: 443)
    _ = Self.complete(verdicts, task: 1, host: "open.test", facts: Self.facts(Self.first, reused: false))
    let pins = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Some Root"), CNChainLink(.exact, "api.test")])])
    ])
    let refused = Self.complete(verdicts, task: 2, facts: Self.facts(Self.first, reused: true), manager: pins)
    #expect(refused.refusal?.code == .connectionNotJudged && refused.retire)
  }

  #if CNPINNING_LINUX_BACKEND
  /// A second host URLSession puts on the first's connection (HTTP/2 coalescing) is judged by its
  /// own pins on that connection's verified chain.
  @Test func aCoalescedHostIsJudgedByItsOwnPinsOnTheConnectionsChain() throws {
    let pki = try TestPKI(dnsNames: ["api.test", "cdn.test"])
    let chain = pki.leaf.chain
    let opener = Judgement(use: .new, verifiedChain: chain, presentedChain: [], pinning: .notPinned, rejection: nil)
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(opener, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let matching = try matchingPins("cdn.test")
    let accepted = Self.complete(
      verdicts, task: 2, host: "cdn.test", facts: Self.facts(Self.first, reused: true), manager: matching)
    #expect(accepted.refusal == nil)
    guard case .accepted? = accepted.judgements.first?.pinning else {
      Issue.record("cdn.test's pins were not judged: \(accepted.judgements)")
      return
    }
    let other = try CNPinningManager(configuration: [
      "cdn.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Other Root"), CNChainLink(.suffix, ".test")])])
    ])
    let refused = Self.complete(verdicts, task: 3, host: "cdn.test", facts: Self.facts(Self.first, reused: true), manager: other)
    #expect(refused.refusal?.code == .pinMismatch)
    #expect(refused.retire, "the host's next request gets a connection of its own (L4)")
    #expect(!accepted.retire)
  }

  /// Review N3: a stream to a pinned host that URLSession coalesced onto another host's HTTP/2
  /// connection has no verdict of its own host and port at its head: it stands on a bound verdict
  /// whose verified chain its own pins accept, and is judged by its connection at its end. With
  /// other pins it is refused. Before, it was refused at its head after its request was sent
  /// (saying its metrics never came), where `data(for:)` passed.
  @Test func aCoalescedStreamStandsOnAnotherHostsVerdictItsPinsAccept() throws {
    let pki = try TestPKI(dnsNames: ["api.test", "cdn.test"])
    let opener = Judgement(use: .new, verifiedChain: pki.leaf.chain, presentedChain: [], pinning: .notPinned, rejection: nil)
    let verdicts = ConnectionVerdicts()
    verdicts.challenged(opener, task: 1, host: "api.test", port: 443)
    _ = Self.complete(verdicts, task: 1, facts: Self.facts(Self.first, reused: false))
    let matching = try matchingPins("cdn.test")
    let head = Self.complete(verdicts, task: 2, host: "cdn.test", facts: nil, manager: matching, final: false)
    #expect(head.refusal == nil && !head.retire, "\(head)")
    guard case .accepted? = head.judgements.first?.pinning else {
      Issue.record("cdn.test's pins were not judged at the head: \(head.judgements)")
      return
    }
    let end = Self.complete(verdicts, task: 2, host: "cdn.test", facts: Self.facts(Self.first, reused: true), manager: matching)
    #expect(end.refusal == nil)
    let other = try CNPinningManager(configuration: [
      "cdn.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Other Root"), CNChainLink(.suffix, ".test")])])
    ])
    let refused = Self.complete(verdicts, task: 3, host: "cdn.test", facts: nil, manager: other, final: false)
    #expect(refused.refusal?.code == .connectionNotJudged && refused.retire)
    #expect(refused.refusal?.reason(ifCode: .connectionNotJudged)?.contains("when its response came") == true)
    // Another port's verdict never stands for it.
    let elsewhere = verdicts.complete(
      task: 4, host: "cdn.test", port: 8443, manager: matching, unpinnedHosts: .allow, facts: nil, mustBeJudged: true,
      final: false)
    #expect(elsewhere.refusal != nil)
  }
  #endif
}
