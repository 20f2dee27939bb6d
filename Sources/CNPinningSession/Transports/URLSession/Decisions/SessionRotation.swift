@_spi(Locking) import CNPinning
import Foundation

/// Thrown by `SessionRotation.withSession` once the rotation is closed.
struct SessionRotationClosed: Error {}

/// The one URLSession a transport uses, replaced when the pins in force change, as a small state
/// machine: a caller leases the session for the whole of its request, and a replaced session is
/// retired only when its last lease ends. So no task is ever created in an invalidated session
/// (on Apple platforms an Objective-C exception Swift cannot catch; on Linux a `fatalError`).
///
/// The rules, all under one lock:
/// - A lease for another owner (manager), or for a newer generation of the same owner, replaces
///   the current session; a lease for an older generation of the current owner uses the current
///   session, so generations never go backwards when stale readers arrive late.
/// - A replaced session, or one taken out of service (``retire(_:)``), is retired
///   (`finishTasksAndInvalidate`) once it has no lease.
/// - `close` refuses new leases, cancels every running lease's work, and cancels (`cancel`:
///   `invalidateAndCancel`) each session once its last lease ends.
/// Platform-neutral: tested on Linux with swift-corelibs-foundation's URLSession.
final class SessionRotation<Owner: AnyObject & Sendable, Generation: Comparable & Sendable, Session: AnyObject & Sendable>:
  Sendable
{
  /// Thrown by `withSession` once the rotation is closed.
  typealias Closed = SessionRotationClosed

  private let make: @Sendable () -> Session
  private let retire: @Sendable (Session) -> Void
  private let cancel: @Sendable (Session) -> Void
  private let state = Locked(State())

  private struct Entry {
    let session: Session
    /// Held strongly, so that a new owner at a freed address is not taken for this one.
    let owner: Owner?
    let generation: Generation?
    /// Running leases, each with what cancels its work (nil until its work has started).
    var leases: [UInt64: (@Sendable () -> Void)?] = [:]
  }

  private struct State {
    var current: Entry?
    /// Replaced sessions with leases still running.
    var replaced: [Entry] = []
    var nextLease: UInt64 = 0
    var closed = false
  }

  /// Sessions that ended, for tests: how many were made and how many retired or cancelled.
  private let counts = Locked((made: 0, ended: 0))

  init(
    make: @escaping @Sendable () -> Session, retire: @escaping @Sendable (Session) -> Void,
    cancel: @escaping @Sendable (Session) -> Void
  ) {
    self.make = make
    self.retire = retire
    self.cancel = cancel
  }

  /// Runs `work` with the session for `owner` at `generation`, holding a lease on it until `work`
  /// returns. Cancelling the calling task, or `close`, cancels `work`'s task.
  func withSession<Result: Sendable>(
    owner: Owner?, generation: Generation?, _ work: @escaping @Sendable (Session) async throws -> Result
  ) async throws -> Result {
    let (session, lease, ended) = try acquire(owner: owner, generation: generation)
    end(ended, closing: false)
    let task = Task { try await work(session) }
    let closedMeanwhile = state.withLock { state in
      guard !state.closed else { return true }
      Self.update(&state, session: session) { $0.leases[lease] = { task.cancel() } }
      return false
    }
    if closedMeanwhile { task.cancel() }
    defer { release(session: session, lease: lease) }
    return try await withTaskCancellationHandler {
      try await task.value
    } onCancel: {
      task.cancel()
    }
  }

  /// Takes `session` out of service: the next lease makes a new one, and `session` is retired
  /// once its last lease ends. For a URLSession that sent a request over a connection nobody
  /// judged (issue 53, M5): `flush` promises a new TCP connection, not a new TLS session, so the
  /// next connection could resume the unjudged one; a new URLSession has caches of its own.
  func retire(_ session: Session) {
    let ended = state.withLock { state -> [Session] in
      guard let current = state.current, current.session === session else { return [] }
      state.current = nil
      guard current.leases.isEmpty else {
        state.replaced.append(current)
        return []
      }
      return [session]
    }
    end(ended, closing: false)
  }

  /// Refuses new leases, cancels running ones, and cancels each session once its last lease ends.
  func close() {
    let (cancellations, idle) = state.withLock { state -> ([@Sendable () -> Void], [Session]) in
      state.closed = true
      let entries = (state.current.map { [$0] } ?? []) + state.replaced
      let idle = entries.filter(\.leases.isEmpty).map(\.session)
      if state.current?.leases.isEmpty == true { state.current = nil }
      state.replaced.removeAll { $0.leases.isEmpty }
      return (entries.flatMap { $0.leases.values.compactMap { $0 } }, idle)
    }
    for cancellation in cancellations { cancellation() }
    end(idle, closing: true)
  }

  /// Whether `close` was called.
  var isClosed: Bool { state.withLock { $0.closed } }

  /// Sessions made and sessions retired or cancelled so far.
  var sessionCounts: (made: Int, ended: Int) { counts.withLock { $0 } }

  private func acquire(owner: Owner?, generation: Generation?) throws -> (Session, UInt64, [Session]) {
    try state.withLock { state throws -> (Session, UInt64, [Session]) in
      guard !state.closed else { throw Closed() }
      var ended: [Session] = []
      if let current = state.current, !Self.serves(current, owner: owner, generation: generation) {
        if current.leases.isEmpty { ended.append(current.session) } else { state.replaced.append(current) }
        state.current = nil
      }
      if state.current == nil {
        state.current = Entry(session: make(), owner: owner, generation: generation)
        counts.withLock { $0.made += 1 }
      }
      let lease = state.nextLease
      state.nextLease += 1
      state.current!.leases[lease] = .some(nil)
      return (state.current!.session, lease, ended)
    }
  }

  /// Whether `entry`'s session serves a request for `owner` at `generation`.
  private static func serves(_ entry: Entry, owner: Owner?, generation: Generation?) -> Bool {
    guard entry.owner === owner else { return false }
    switch (entry.generation, generation) {
    case (nil, nil): return true
    case (let current?, let asked?): return asked <= current
    default: return false
    }
  }

  private func release(session: Session, lease: UInt64) {
    let (ended, closing) = state.withLock { state -> (Session?, Bool) in
      Self.update(&state, session: session) { $0.leases[lease] = nil }
      if let current = state.current, current.session === session {
        guard state.closed, current.leases.isEmpty else { return (nil, state.closed) }
        state.current = nil
        return (session, true)
      }
      guard let index = state.replaced.firstIndex(where: { $0.session === session }),
        state.replaced[index].leases.isEmpty
      else { return (nil, state.closed) }
      state.replaced.remove(at: index)
      return (session, state.closed)
    }
    end(ended.map { [$0] } ?? [], closing: closing)
  }

  private static func update(_ state: inout State, session: Session, _ change: (inout Entry) -> Void) {
    if state.current?.session === session {
      change(&state.current!)
    } else if let index = state.replaced.firstIndex(where: { $0.session === session }) {
      change(&state.replaced[index])
    }
  }

  /// Retires (or, once closed, cancels) sessions no lease holds; outside the lock.
  private func end(_ sessions: [Session], closing: Bool) {
    guard !sessions.isEmpty else { return }
    for session in sessions { closing ? cancel(session) : retire(session) }
    counts.withLock { $0.ended += sessions.count }
  }
}
