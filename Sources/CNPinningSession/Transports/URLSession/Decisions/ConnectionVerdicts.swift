@_spi(Locking) import CNPinning
import Foundation

/// The verdicts a URLSession of the Apple transport has made, bound to the connections they were
/// made on. URLSession sends the server-trust challenge only to the task that opens a connection
/// (and none at all when it resumes a TLS session); every other task on that connection, HTTP/2
/// streams beside the opener included, must be judged by the opener's verdict, and a task on a
/// connection nobody judged must be refused.
///
/// - A challenge's judgement is recorded when it is made (`challenged`), before the disposition
///   goes back, so that a task finishing before the opener, or after an opener that failed, was
///   cancelled or hit a limit, still finds it.
/// - When a task ends (`complete`), its metrics name its connection: an opener binds its verdict
///   to it; another task stands only on the verdict bound to its very connection (or, when the
///   metrics name no connection, on a verdict that was bound to none). A task for another host on
///   a bound connection (HTTP/2 coalescing) has its own pins judged on that connection's verified
///   chain. A task whose metrics say URLSession opened its connection for it, without a
///   challenge, stands only on a verdict bound by an opener challenged before its request went
///   out (a closed connection's addresses and ports may come again: review M3).
/// - A task whose connection is not bound yet waits (`judge`) for the running openers that could
///   have opened it (its host and port, challenged before its request went out), at most its
///   request's timeout or ``longestWait``, whichever is shorter, and not past its cancellation or
///   the URLSession's invalidation (which cancels it); it stands if one of them binds its very
///   connection. So a connection nobody judged passes no task while a stranger's opener runs
///   (review N2), and a waiter is never held behind a long-lived opener for long (N4).
/// - A stream's response comes before its metrics: it stands on a running opener's verdict or one
///   bound to a connection of this URLSession for its host and port, or, coalesced onto another
///   host's connection, on a bound verdict whose verified chain its own pins accept (N3); it is
///   judged by its own connection at its end.
/// - Anything else that must be judged (a pinned host, custom anchors, `unpinnedHosts: .deny`) is
///   refused with `connectionNotJudged`, and the transport retires the URLSession's connections.
///
/// Bounded: at most `capacity` connections, host-and-port verdicts and refused connections are
/// kept, the least recently used dropped (a busy connection opened early stays judged).
/// Platform-neutral, tested on Linux with sequences of challenges and metrics.
final class ConnectionVerdicts: Sendable {
  static let capacity = 1024
  /// The longest a task waits in `judge` for the openers of its connection, however long its
  /// request may take: a few seconds, as an opener's challenge is answered within a handshake.
  static let longestWait = BoundedInterval(5)!

  fileprivate struct Verdict {
    let host: String
    let port: Int
    let judgement: Judgement
    /// The task whose challenge made it, and when.
    let task: Int
    let time: Date
    var hostPort: String { HostName.authority(host, port: port) }
  }

  fileprivate struct State {
    /// Every judgement of each running task's challenges, by task.
    var challenged: [Int: [Verdict]] = [:]
    /// Verdicts bound to the connection they were made on, least recently used first.
    var bound: [ConnectionID: Verdict] = [:]
    var boundOrder: [ConnectionID] = []
    /// Accepted verdicts whose task ended without naming its connection, by host and port.
    var unbound: [String: Verdict] = [:]
    var unboundOrder: [String] = []
    /// Connections refused as unjudged, oldest first: every later task on one is refused too.
    var refused: Set<ConnectionID> = []
    var refusedOrder: [ConnectionID] = []
    /// Tasks waiting in `judge` for openers to end, each with the openers it waits for.
    var waiting: [UUID: (openers: Set<Int>, continuation: CheckedContinuation<Void, Never>)] = [:]
  }
  private let state = Locked(State())

  /// What `complete` concluded for a task.
  struct Completion {
    /// The task's judgements, for events and reports: its challenges', or the one it was judged by.
    let judgements: [Judgement]
    /// Why the task may not stand; nil when it may.
    let refusal: CNPinnedSessionError?
    /// Whether the URLSession's connections should be retired (a connection nobody judged).
    let retire: Bool
  }

  /// Records a challenge's judgement for `task` as it is made (`time`: now).
  func challenged(_ judgement: Judgement, task: Int, host: String, port: Int, time: Date = Date()) {
    state.withLock {
      $0.challenged[task, default: []].append(Verdict(host: host, port: port, judgement: judgement, task: task, time: time))
    }
  }

  /// `complete`, for a task that has ended with its metrics known, or a stream's response
  /// (`final` false; it waits for nothing). A task whose connection is not bound yet first waits
  /// for the running openers that could have opened it: those for its host and port challenged
  /// before its request went out (an opener challenged later cannot have opened it). Among them
  /// are the openers of a cold HTTP/2 burst's waiters (review M8; what `isReusedConnection` says
  /// for those is not documented) and of tasks that finished before their connection's opener.
  /// The wait lasts at most `requestTimeout` or `longestWait`, whichever is shorter, and ends
  /// at once when the calling task is cancelled (the task is then refused as `cancelled`, with no
  /// judgement to report).
  func judge(
    task: Int, host: String, port: Int, manager: CNPinningManager?, unpinnedHosts: CNUnpinnedHostPolicy,
    facts: TransactionFacts?, mustBeJudged: Bool, final: Bool = true, requestTimeout: BoundedInterval?,
    longestWait: BoundedInterval = longestWait
  ) async -> Completion {
    let hostPort = HostName.authority(host, port: port)
    let openers = final ? state.withLock { $0.openers(before: facts, for: task, hostPort: hostPort) } : []
    if !openers.isEmpty {
      await waitForEnd(of: openers, upTo: min(requestTimeout ?? longestWait, longestWait).duration)
      if Task.isCancelled { return Completion(judgements: [], refusal: .cancelled, retire: false) }
    }
    return complete(
      task: task, host: host, port: port, manager: manager, unpinnedHosts: unpinnedHosts, facts: facts,
      mustBeJudged: mustBeJudged, final: final, vouchers: openers)
  }

  /// Returns once none of `openers` is running, `patience` has passed, or the calling task is
  /// cancelled. Whoever takes the waiter out of `waiting` resumes it: an opener's end, the timer
  /// or the cancellation.
  private func waitForEnd(of openers: Set<Int>, upTo patience: Duration) async {
    let id = UUID()
    let timer = Locked<Task<Void, Never>?>(nil)
    let state = state
    let stopWaiting: @Sendable () -> Void = {
      state.withLock { $0.waiting.removeValue(forKey: id) }?.continuation.resume()
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let running = state.withLock { state -> Bool in
          guard openers.contains(where: { state.challenged[$0] != nil }) else { return false }
          state.waiting[id] = (openers, continuation)
          return true
        }
        guard running else { return continuation.resume() }
        // Cancelled before the waiter was there for the handler to find.
        guard !Task.isCancelled else { return stopWaiting() }
        timer.withLock {
          $0 = Task {
            try? await Task.sleep(for: patience)
            stopWaiting()
          }
        }
      }
    } onCancel: {
      stopWaiting()
    }
    // Ended otherwise: the timer has nothing left to do.
    timer.withLock { $0 }?.cancel()
  }

  /// Judges a task that has ended (or, with `final` false, a stream whose response has come and
  /// whose metrics will come at its end) for `host` and `port`. `facts`: from its metrics, nil
  /// when there are none (yet); `mustBeJudged`: the host is pinned, or custom anchors or
  /// `unpinnedHosts: .deny` apply.
  func complete(
    task: Int, host: String, port: Int, manager: CNPinningManager?, unpinnedHosts: CNUnpinnedHostPolicy,
    facts: TransactionFacts?, mustBeJudged: Bool, final: Bool = true, vouchers: Set<Int> = []
  ) -> Completion {
    let (completion, ended) = state.withLock { state -> (Completion, [CheckedContinuation<Void, Never>]) in
      let own = final ? state.challenged.removeValue(forKey: task) ?? [] : state.challenged[task] ?? []
      let ended = own.isEmpty ? [] : state.openersEnded()
      return (
        Self.complete(
          &state, own: own, host: host, port: port, manager: manager, unpinnedHosts: unpinnedHosts, facts: facts,
          mustBeJudged: mustBeJudged, final: final, vouchers: vouchers), ended
      )
    }
    for waiter in ended { waiter.resume() }
    return completion
  }

  private static func complete(
    _ state: inout State, own: [Verdict], host: String, port: Int, manager: CNPinningManager?,
    unpinnedHosts: CNUnpinnedHostPolicy, facts: TransactionFacts?, mustBeJudged: Bool, final: Bool, vouchers: Set<Int>
  ) -> Completion {
    let hostPort = HostName.authority(host, port: port)
    if !own.isEmpty {
      if final, let accepted = own.last(where: { $0.judgement.rejection == nil }) {
        if let connection = facts?.connection {
          state.bind(accepted, to: connection)
        } else {
          state.remember(accepted, for: hostPort)
        }
      }
      return Completion(judgements: own.map { Self.negotiated($0.judgement, facts) }, refusal: nil, retire: false)
    }
    let judged = state.verdict(for: facts, hostPort: hostPort, final: final, vouchers: vouchers)
    if let connection = facts?.connection, state.refused.contains(connection) {
      return Self.refusal(host: host, "the connection was refused before as unjudged", facts, retire: true)
    }
    if judged == nil, facts == nil, !final,
      let coalesced = state.coalescedHead(
        host: host, port: port, manager: manager, unpinnedHosts: unpinnedHosts, facts: facts)
    {
      return coalesced
    }
    guard let judged else {
      guard mustBeJudged else {
        let use: ConnectionFacts.Use = facts?.isReusedConnection == false ? .new : .reused
        return Completion(
          judgements: [
            Self.negotiated(
              Judgement(use: use, verifiedChain: [], presentedChain: [], pinning: nil, rejection: nil), facts)
          ], refusal: nil, retire: false)
      }
      if let connection = facts?.connection { state.refuse(connection) }
      let reason: String
      switch (facts?.isReusedConnection, final) {
      case (nil, true): reason = "its task's metrics, which name the connection, never came"
      case (nil, false): reason = "no connection of this URLSession was judged for its host when its response came"
      case (true?, _): reason = "URLSession reused a connection no request of this session was challenged on"
      case (false?, _): reason = "URLSession opened it without a server-trust challenge (a resumed TLS session)"
      }
      let waited = vouchers.isEmpty ? "" : "; no request that could have opened it bound it within the wait"
      return Self.refusal(host: host, reason + waited, facts, retire: true)
    }
    return Self.reuse(judged, for: host, manager: manager, unpinnedHosts: unpinnedHosts, facts: facts)
  }

  /// `verdict`, judged for a task on its connection: the same host reuses it; another host
  /// (coalesced onto the connection) has its own pins judged on the connection's verified chain.
  /// A refusal there retires the URLSession (issue 53, L4), so that the host's next request gets
  /// a connection of its own, challenged for it, rather than being refused while the shared one
  /// lives.
  fileprivate static func reuse(
    _ verdict: Verdict, for host: String, manager: CNPinningManager?, unpinnedHosts: CNUnpinnedHostPolicy,
    facts: TransactionFacts?
  ) -> Completion {
    let chain = verdict.judgement.verifiedChain
    guard verdict.host != host else {
      return Completion(
        judgements: [
          negotiated(
            Judgement(use: .reused, verifiedChain: chain, presentedChain: [], pinning: verdict.judgement.pinning, rejection: nil),
            facts)
        ], refusal: nil, retire: false)
    }
    let pinning: CNPinningResult
    if chain.isEmpty {
      // The connection's chain was left to the system (an unpinned host): pins cannot be judged.
      guard manager?.configuration(for: host) == nil else {
        return refusal(
          host: host, "URLSession put it on a connection opened for \(verdict.host), whose chain was not judged", facts,
          retire: true)
      }
      pinning = .notPinned
    } else {
      pinning = manager?.evaluate(host: host, chain: chain) ?? .notPinned
    }
    let rejection: CNPinnedSessionError?
    switch pinning {
    case .accepted, .reportOnly: rejection = nil
    case .notPinned: rejection = unpinnedHosts.refusal(host: host)
    case .rejected(let failure): rejection = .pinMismatch(failure)
    }
    let judgement = negotiated(
      Judgement(use: .reused, verifiedChain: chain, presentedChain: [], pinning: pinning, rejection: rejection), facts)
    return Completion(judgements: [judgement], refusal: rejection, retire: rejection != nil)
  }

  private static func refusal(host: String, _ reason: String, _ facts: TransactionFacts?, retire: Bool) -> Completion {
    let error = CNPinnedSessionError.connectionNotJudged(host: host, reason: reason)
    let judgement = negotiated(
      Judgement(
        use: facts?.isReusedConnection == true ? .reused : .resumed, verifiedChain: [], presentedChain: [], pinning: nil,
        rejection: error), facts)
    return Completion(judgements: [judgement], refusal: error, retire: retire)
  }

  /// `judgement` with the version and protocol the metrics say the connection negotiated.
  private static func negotiated(_ judgement: Judgement, _ facts: TransactionFacts?) -> Judgement {
    guard let facts else { return judgement }
    return Judgement(
      use: judgement.use, verifiedChain: judgement.verifiedChain, presentedChain: judgement.presentedChain,
      pinning: judgement.pinning, rejection: judgement.rejection, protocolVersion: Int(facts.tlsVersion ?? 0),
      applicationProtocol: facts.applicationProtocol)
  }

  /// How many verdicts are kept, for tests of the bound.
  var counts: (bound: Int, unbound: Int, running: Int, refused: Int) {
    state.withLock { ($0.bound.count, $0.unbound.count, $0.challenged.count, $0.refused.count) }
  }
}

extension ConnectionVerdicts.State {
  fileprivate mutating func bind(_ verdict: ConnectionVerdicts.Verdict, to connection: ConnectionID) {
    if bound.updateValue(verdict, forKey: connection) != nil { boundOrder.removeAll { $0 == connection } }
    boundOrder.append(connection)
    while boundOrder.count > ConnectionVerdicts.capacity { bound[boundOrder.removeFirst()] = nil }
    if refused.remove(connection) != nil { refusedOrder.removeAll { $0 == connection } }
  }

  fileprivate mutating func refuse(_ connection: ConnectionID) {
    if refused.insert(connection).inserted { refusedOrder.append(connection) }
    while refusedOrder.count > ConnectionVerdicts.capacity { refused.remove(refusedOrder.removeFirst()) }
  }

  /// The verdict bound to `connection`, now its most recently used.
  fileprivate mutating func use(_ connection: ConnectionID) -> ConnectionVerdicts.Verdict? {
    guard let verdict = bound[connection] else { return nil }
    if boundOrder.last != connection {
      boundOrder.removeAll { $0 == connection }
      boundOrder.append(connection)
    }
    return verdict
  }

  fileprivate mutating func remember(_ verdict: ConnectionVerdicts.Verdict, for hostPort: String) {
    if unbound.updateValue(verdict, forKey: hostPort) == nil { unboundOrder.append(hostPort) }
    while unboundOrder.count > ConnectionVerdicts.capacity { unbound[unboundOrder.removeFirst()] = nil }
  }

  /// The running openers that could have opened the connection of `task` (which has none of its
  /// own challenges), when no verdict stands for it yet: those for ``hostPort`` whose accepted
  /// challenge came before the task's request went out (any, when the metrics do not say when).
  fileprivate func openers(before facts: TransactionFacts?, for task: Int, hostPort: String) -> Set<Int> {
    guard challenged[task] == nil, let facts else { return [] }
    if let connection = facts.connection {
      guard !refused.contains(connection), facts.isReusedConnection == false || bound[connection] == nil else {
        // Refused before, or reusing a bound connection: nothing to wait for.
        return []
      }
    } else if unbound[hostPort] != nil {
      return []
    }
    let sent = facts.requestStart ?? .distantFuture
    return Set(
      challenged.values.joined().filter { $0.hostPort == hostPort && $0.judgement.rejection == nil && $0.time <= sent }
        .map(\.task))
  }

  /// The waiters in `judge` none of whose openers is running any more, taken out.
  fileprivate mutating func openersEnded() -> [CheckedContinuation<Void, Never>] {
    let done = waiting.filter { entry in !entry.value.openers.contains { challenged[$0] != nil } }
    for id in done.keys { waiting[id] = nil }
    return done.values.map(\.continuation)
  }

  /// The verdict a task without a challenge of its own is judged by; `vouchers`: the openers
  /// that may have opened its connection (`judge`).
  fileprivate mutating func verdict(
    for facts: TransactionFacts?, hostPort: String, final: Bool, vouchers: Set<Int>
  ) -> ConnectionVerdicts.Verdict? {
    guard let facts else {
      // Final metrics that never came cannot name the connection: fail closed.
      guard !final else { return nil }
      // A stream's response, its connection not known until its end: a running opener for its
      // host and port, or a connection of this URLSession judged for them, stands for it until then.
      let running = challenged.values.lazy.compactMap { $0.last(where: { $0.judgement.rejection == nil }) }
        .first { $0.hostPort == hostPort }
      if let running { return running }
      if let connection = boundOrder.last(where: { bound[$0]?.hostPort == hostPort }) { return bound[connection] }
      return unbound[hostPort]
    }
    // Metrics given without addresses: only a verdict that was bound to no connection either.
    guard let connection = facts.connection else { return unbound[hostPort] }
    guard let verdict = bound[connection] else { return nil }
    // A connection URLSession opened for this task without asking is never judged by another's,
    // not even by a closed connection's that had the same addresses and ports, unless an opener
    // challenged before the task's request went out bound it.
    guard facts.isReusedConnection || vouchers.contains(verdict.task) else { return nil }
    return use(connection)
  }

  /// For a stream's response to `host` that no verdict for its own host and port stands for: the
  /// most recent verdict bound at `port` for another host whose verified chain `manager`'s pins
  /// for `host` accept (URLSession may have coalesced the stream onto that host's HTTP/2
  /// connection, review N3). Judged again by its own connection at its end.
  fileprivate mutating func coalescedHead(
    host: String, port: Int, manager: CNPinningManager?, unpinnedHosts: CNUnpinnedHostPolicy,
    facts: TransactionFacts?
  ) -> ConnectionVerdicts.Completion? {
    for connection in boundOrder.reversed() {
      guard let verdict = bound[connection], verdict.port == port, verdict.host != host,
        !verdict.judgement.verifiedChain.isEmpty
      else { continue }
      let completion = ConnectionVerdicts.reuse(
        verdict, for: host, manager: manager, unpinnedHosts: unpinnedHosts, facts: facts)
      if completion.refusal == nil { return completion }
    }
    return nil
  }
}
