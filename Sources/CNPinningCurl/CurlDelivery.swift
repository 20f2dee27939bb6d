#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning

/// How the end of a job reaches the requesting task, and the task's cancellation the driver: the
/// parts of a job that two threads touch, under one lock. The session's driver delivers once (the
/// report itself is the session's: written before the delivery, read after it); the task goes on
/// at once when it is already delivered (a request that drove itself, `CurlMultiLoop.borrow`,
/// never suspends), or waits for it. A value whose copies share one delivery (its state's lock):
/// one allocation, not two.
package struct CurlDelivery: Sendable {
  enum State {
    case pending
    case waiting(UnsafeContinuation<Void, Never>)
    case delivered
    case taken
  }
  /// The state, when the delivery was made (uptime nanoseconds; 0 before) and whether the job
  /// was cancelled, under one lock (a lock of its own for the flag cost a request an allocation).
  struct Shared {
    var state = State.pending
    var deliveredAt: UInt64 = 0
    var cancelled = false
  }
  /// ``Locked`` (a pthread mutex underneath), not ``Synchronization/Mutex``: on Linux the Mutex waits
  /// in the kernel when contended, where ThreadSanitizer cannot see the ordering it gives, so
  /// `make tsan` reported this hand-off as a race (see docs/decisions/testing.md).
  private let shared = Locked(Shared())

  package init() {}

  /// When the delivery was made (uptime nanoseconds; 0 before).
  package var deliveredAt: UInt64 { shared.withLock { $0.deliveredAt } }

  /// Marks the job cancelled (``CurlMultiLoop/cancel(_:)``), for the driver to see.
  package func cancel() { shared.withLock { $0.cancelled = true } }

  /// Whether the job was cancelled.
  package var isCancelled: Bool { shared.withLock { $0.cancelled } }

  /// Whether the job has been delivered (taken or not).
  package var hasDelivered: Bool {
    shared.withLock { shared in
      switch shared.state {
      case .pending, .waiting: false
      case .delivered, .taken: true
      }
    }
  }

  /// The task that already waits for the delivery: whoever delivered resumes it, when it chooses
  /// to (``CurlMultiLoop`` does once it has decided whether to park).
  package struct Resumption {
    let continuation: UnsafeContinuation<Void, Never>
    let shared: Locked<Shared>
    /// Resumes the task under the state's lock, which the task takes once it runs on
    /// (``take()``): ThreadSanitizer then sees the resumption's read of the task's frame ordered
    /// before the task's next use of it, an order the Swift runtime keeps where TSan cannot see
    /// it when the resumption comes before the task has suspended (docs/decisions/testing.md).
    package func resume() { shared.withLock { _ in continuation.resume() } }
  }

  /// Delivers, unless delivered already (later deliveries do nothing); returns the waiting
  /// task's resumption, if a task waits.
  package func deliver() -> Resumption? {
    let now = Uptime.nanoseconds
    let waiting = shared.withLock { shared -> UnsafeContinuation<Void, Never>? in
      let waiting: UnsafeContinuation<Void, Never>?
      switch shared.state {
      case .pending:
        shared.state = .delivered
        waiting = nil
      case .waiting(let continuation):
        shared.state = .taken
        waiting = continuation
      case .delivered, .taken:
        return nil
      }
      shared.deliveredAt = now
      return waiting
    }
    return waiting.map { Resumption(continuation: $0, shared: shared) }
  }

  /// Returns at once if delivered, else when it is. Called once. Either way the state's lock is
  /// taken after the delivery (and after the resumption, which holds it), so what the deliverer
  /// wrote before delivering is ordered before what the task reads next through the lock, which
  /// ThreadSanitizer sees (it cannot see the ordering a continuation's resumption gives).
  @inline(__always) package func take() async {
    let delivered = shared.withLock { shared -> Bool in
      guard case .delivered = shared.state else { return false }
      shared.state = .taken
      return true
    }
    if delivered { return }
    defer { shared.withLock { _ in } }
    // Resumed exactly once: here when the delivery came meanwhile, or through the one Resumption
    // `deliver` returns, which it makes only from `.waiting` and leaves `.taken` behind.
    await withUnsafeContinuation { continuation in
      let delivered = shared.withLock { shared -> Bool in
        if case .delivered = shared.state {
          shared.state = .taken
          return true
        }
        shared.state = .waiting(continuation)
        return false
      }
      if delivered { continuation.resume() }
    }
  }
}
#endif
