#if CNPINNING_LINUX_BACKEND
/// The hand-off decisions of ``CurlMultiLoop`` as a value: who drives libcurl (the network thread,
/// a borrowing caller, nobody), what queued work is waiting, and, for each event, the action
/// the loop then takes outside the lock (signal a descriptor, wait, park, hand over, resume).
/// The loop keeps one behind its lock and does nothing else under it; tests drive it as a
/// value, without threads or sockets (`CNPinningCurlTests`).
///
/// The rules it keeps (the loop's type comment has the why):
/// - Work queued while the driver waits signals it once; while the driver runs, nothing (it looks
///   at the queue before it next waits); while nobody drives, the parked network thread becomes
///   the driver and is signalled.
/// - While the network thread resumes the tasks whose jobs ended, work queued neither signals it
///   nor leaves it to park: it is `reclaimed`, and the thread drives on.
/// - A request borrows only an idle session (nobody driving, nothing queued, not shutting down)
///   whose latest request was quick, and hands the role to the network thread when it is done,
///   out of budget, or other work is queued, unless nothing is left to drive.
/// - After shutdown nothing is queued: the caller ends the work itself.
package struct CurlLoopControl<Command> {
  /// Who may touch libcurl now.
  package enum Driver: Equatable {
    case networkThread
    /// A requesting task, on the thread it runs on.
    case borrower
    /// Nobody: the network thread is parked, nothing runs and nothing is queued.
    case nobody
  }

  /// Whom to signal so that queued work is seen.
  package enum WakeUp: Equatable {
    /// Nobody: the driver is running and looks at the queue before it next waits.
    case none
    /// The driver, waiting in its event set (the wake-up descriptor).
    case driver
    /// The parked network thread, which becomes the driver (the park descriptor).
    case networkThread
  }

  /// What the network thread does after a turn.
  package enum Next: Equatable {
    /// Turn again: work is queued, or came while it resumed tasks.
    case again
    /// Wait in the event set (libcurl has work, or its timer is set).
    case wait
    /// Park: nothing runs, and the next request may drive itself.
    case park
  }

  /// What a borrower does after a turn.
  package enum BorrowNext: Equatable {
    case wait
    /// Return, leaving nobody driving: nothing is left to drive.
    case release
    /// Return, having made the network thread the driver: signal it.
    case handOver
  }

  package private(set) var queue: [Command] = []
  package private(set) var shuttingDown = false
  /// A new session is idle: its network thread starts parked.
  package private(set) var driver = Driver.nobody
  /// Set while the driver is (about to be) blocked waiting and nobody has signalled it yet: the
  /// first producer to find it set signals the wake-up descriptor and clears it.
  package private(set) var driverIsWaiting = false
  /// Set while the network thread resumes the tasks whose jobs ended, after deciding to wait or
  /// park and before it does.
  package private(set) var resuming = false
  /// Work was queued while the network thread resumed tasks: it drives on.
  package private(set) var reclaimed = false
  /// Whether the latest request took less than the borrow budget: only then may the next borrow.
  package private(set) var lastRequestWasQuick = false
  /// How many transfers were borrowed (for tests).
  package private(set) var borrowed = 0
  /// How many times a producer signalled the driver or the parked network thread (for tests).
  package private(set) var signals = 0

  package init() {}

  /// Queues `command`, and says whom to signal; nil (nothing queued) after shutdown: the caller
  /// ends the work itself.
  package mutating func enqueue(_ command: Command) -> WakeUp? {
    guard !shuttingDown else { return nil }
    queue.append(command)
    return wakeUpAfterQueueing()
  }

  /// Starts the shutdown, and says whom to signal; nil when it had started already.
  package mutating func shutdown() -> WakeUp? {
    guard !shuttingDown else { return nil }
    shuttingDown = true
    return wakeUpAfterQueueing()
  }

  private mutating func wakeUpAfterQueueing() -> WakeUp {
    switch driver {
    case .nobody:
      driver = .networkThread
      guard !resuming else {
        reclaimed = true
        return .none
      }
      signals += 1
      return .networkThread
    case .networkThread, .borrower:
      guard driverIsWaiting else { return .none }
      driverIsWaiting = false
      signals += 1
      return .driver
    }
  }

  /// The commands queued so far, taken by the driver, and whether the session is shutting down.
  package mutating func takeQueue() -> (commands: [Command], shuttingDown: Bool) {
    defer { queue = [] }
    return (queue, shuttingDown)
  }

  /// The network thread's decision after a turn, given whether transfers run, libcurl's timer
  /// is set and tasks are to be resumed (then `resuming` is set until ``resumed(after:)``).
  package mutating func afterTurn(transfersRun: Bool, timerSet: Bool, tasksToResume: Bool) -> Next {
    guard queue.isEmpty, !shuttingDown else { return .again }
    let next: Next
    if !transfersRun, !timerSet {
      driver = .nobody
      next = .park
    } else {
      next = .wait
    }
    if tasksToResume {
      resuming = true
    } else {
      driverIsWaiting = next == .wait
    }
    return next
  }

  /// The decision once the tasks are resumed: `next` stands unless work came meanwhile.
  package mutating func resumed(after next: Next) -> Next {
    resuming = false
    if reclaimed {
      reclaimed = false
      return .again
    }
    guard next == .wait else { return next }
    guard queue.isEmpty, !shuttingDown else { return .again }
    driverIsWaiting = true
    return .wait
  }

  /// The driver's wait ended.
  package mutating func woke() { driverIsWaiting = false }

  /// Whether a request may drive its own transfer now; if so it is the driver.
  package mutating func beginBorrowing() -> Bool {
    guard driver == .nobody, queue.isEmpty, !shuttingDown, lastRequestWasQuick else { return false }
    driver = .borrower
    borrowed += 1
    return true
  }

  /// A borrower's decision after a turn, given whether its transfer is done (delivered, or out
  /// of budget), transfers run and libcurl's timer is set.
  package mutating func afterBorrowedTurn(done: Bool, transfersRun: Bool, timerSet: Bool) -> BorrowNext {
    guard done || !queue.isEmpty || shuttingDown else {
      driverIsWaiting = true
      return .wait
    }
    if !transfersRun, queue.isEmpty, !shuttingDown, !timerSet {
      driver = .nobody
      return .release
    }
    driver = .networkThread
    return .handOver
  }

  /// A request ended: whether it was quick decides whether the next may borrow.
  package mutating func requestEnded(quick: Bool) { lastRequestWasQuick = quick }
}
#endif
