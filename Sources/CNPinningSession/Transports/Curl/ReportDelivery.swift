#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSessionCore

/// How a transfer's report reaches the requesting task: the one part of a transfer that two
/// threads touch. The session's driver delivers the report once; the task takes it at once when
/// it is already there (a request that drove itself, `CurlMultiLoop.borrow`, never suspends), or
/// waits for it.
struct ReportDelivery: ~Copyable {
  enum State {
    case pending
    case waiting(UnsafeContinuation<TransferReport, Never>)
    case delivered(TransferReport)
    case taken
  }
  /// `Locked` (a pthread mutex underneath), not `Synchronization.Mutex`: on Linux the Mutex waits
  /// in the kernel when contended, where ThreadSanitizer cannot see the ordering it gives, so
  /// `make tsan` reported this hand-off as a race (see docs/decisions/testing.md).
  private let state = Locked(State.pending)

  /// Whether the report has been delivered (taken or not).
  var hasDelivered: Bool {
    state.withLock { state in
      if case .pending = state { false } else if case .waiting = state { false } else { true }
    }
  }

  /// A report and the task that already waits for it: whoever delivered it resumes the task,
  /// when it chooses to (`CurlMultiLoop` does once it has decided whether to park).
  struct Resumption {
    let continuation: UnsafeContinuation<TransferReport, Never>
    let report: TransferReport
    func resume() { continuation.resume(returning: report) }
  }

  /// Delivers `report()` unless a report was delivered already (later deliveries do nothing);
  /// returns the waiting task's resumption, if a task waits.
  func deliver(_ report: () -> TransferReport) -> Resumption? {
    guard !hasDelivered else { return nil }
    let report = report()
    let waiting = state.withLock { state -> UnsafeContinuation<TransferReport, Never>? in
      switch state {
      case .pending:
        state = .delivered(report)
        return nil
      case .waiting(let continuation):
        state = .taken
        return continuation
      case .delivered, .taken:
        return nil
      }
    }
    return waiting.map { Resumption(continuation: $0, report: report) }
  }

  /// The report: at once if it was delivered, else when it is. Called once.
  func take() async -> TransferReport {
    if let report = takeDelivered() { return report }
    // Resumed exactly once: here when the report came meanwhile, or through the one Resumption
    // `deliver` returns, which it makes only from `.waiting` and leaves `.taken` behind.
    return await withUnsafeContinuation { continuation in
      let report = state.withLock { state -> TransferReport? in
        if case .delivered(let report) = state {
          state = .taken
          return report
        }
        state = .waiting(continuation)
        return nil
      }
      if let report { continuation.resume(returning: report) }
    }
  }

  private func takeDelivered() -> TransferReport? {
    state.withLock { state in
      guard case .delivered(let report) = state else { return nil }
      state = .taken
      return report
    }
  }
}
#endif
