// The libcurl wrapper is the Linux build's.
#if CNPINNING_LINUX_BACKEND
@testable import CNPinningCurl
import Testing

/// `CurlMultiLoop`'s hand-off decisions as values (issue 67, item 1): each event of
/// `CurlLoopControl` and what it returns, without threads or sockets, including the sequences
/// that were bugs before.
@Suite struct CurlLoopControlTests {
  typealias Control = CurlLoopControl<String>

  /// A session whose network thread drives and has just decided to wait.
  static func waiting() -> Control {
    var control = Control()
    let result1 = control.enqueue("first")
    #expect(result1 == .networkThread)
    _ = control.takeQueue()
    let result2 = control.afterTurn(transfersRun: true, timerSet: false, tasksToResume: false)
    #expect(result2 == .wait)
    return control
  }

  @Test func aNewSessionIsIdleAndItsFirstCommandWakesTheParkedThread() {
    var control = Control()
    #expect(control.driver == .nobody)
    let result3 = control.enqueue("start")
    #expect(result3 == .networkThread)
    #expect(control.driver == .networkThread && control.signals == 1)
    // A second command before the thread looks: it drives, nobody to signal.
    let result4 = control.enqueue("start again")
    #expect(result4 == WakeUp.none)
    #expect(control.takeQueue().commands == ["start", "start again"])
    #expect(control.signals == 1)
  }

  @Test func aWaitingDriverIsSignalledOnceHoweverMuchIsQueued() {
    var control = Self.waiting()
    #expect(control.driverIsWaiting)
    let result5 = control.enqueue("a")
    #expect(result5 == .driver)
    let result6 = control.enqueue("b")
    #expect(result6 == WakeUp.none)
    #expect(control.signals == 2)
    control.woke()
    #expect(!control.driverIsWaiting)
  }

  @Test func aTurnWithWorkQueuedTurnsAgain() {
    var control = Self.waiting()
    control.woke()
    _ = control.enqueue("cancel")
    let result7 = control.afterTurn(transfersRun: true, timerSet: false, tasksToResume: true)
    #expect(result7 == .again)
    #expect(!control.resuming, "nothing to resume before the next turn's decision")
  }

  @Test func nothingRunningParksAndTheNextCommandWakesTheThread() {
    var control = Self.waiting()
    control.woke()
    let result8 = control.afterTurn(transfersRun: false, timerSet: false, tasksToResume: false)
    #expect(result8 == .park)
    #expect(control.driver == .nobody && !control.driverIsWaiting)
    let result9 = control.enqueue("start")
    #expect(result9 == .networkThread)
    // libcurl's timer alone keeps the thread waiting, not parked.
    var timed = Self.waiting()
    timed.woke()
    let result10 = timed.afterTurn(transfersRun: false, timerSet: true, tasksToResume: false)
    #expect(result10 == .wait)
  }

  /// The bug of a resumed task's next request signalling the eventfd once per request: while
  /// the network thread resumes tasks, work queued is reclaimed, not signalled, and the thread
  /// drives on.
  @Test func workQueuedWhileTasksAreResumedIsReclaimedWithoutASignal() {
    var control = Self.waiting()
    control.woke()
    let signals = control.signals
    let result11 = control.afterTurn(transfersRun: false, timerSet: false, tasksToResume: true)
    #expect(result11 == .park)
    #expect(control.resuming && control.driver == .nobody)
    // The resumed task sends its next request at once.
    let result12 = control.enqueue("next request")
    #expect(result12 == WakeUp.none)
    #expect(control.reclaimed && control.driver == .networkThread)
    let result13 = control.resumed(after: .park)
    #expect(result13 == .again)
    #expect(!control.resuming && !control.reclaimed)
    #expect(control.signals == signals, "no signal for work the thread takes itself")
  }

  @Test func aWaitDecidedBeforeResumingStandsWhenNothingCame() {
    var control = Self.waiting()
    control.woke()
    let result14 = control.afterTurn(transfersRun: true, timerSet: false, tasksToResume: true)
    #expect(result14 == .wait)
    #expect(!control.driverIsWaiting, "not waiting yet: tasks are being resumed")
    let result15 = control.resumed(after: .wait)
    #expect(result15 == .wait)
    #expect(control.driverIsWaiting)
    let result16 = control.enqueue("cancel")
    #expect(result16 == .driver)
    var parked = Self.waiting()
    parked.woke()
    let result17 = parked.afterTurn(transfersRun: false, timerSet: false, tasksToResume: true)
    #expect(result17 == .park)
    let result18 = parked.resumed(after: .park)
    #expect(result18 == .park)
    #expect(parked.driver == .nobody)
  }

  @Test func onlyAnIdleSessionWhoseLastRequestWasQuickIsBorrowed() {
    var control = Control()
    let result19 = control.beginBorrowing()
    #expect(!result19, "a new session's first request does not borrow")
    control.requestEnded(quick: true)
    let result20 = control.beginBorrowing()
    #expect(result20)
    #expect(control.driver == .borrower && control.borrowed == 1)
    let result21 = control.beginBorrowing()
    #expect(!result21, "someone drives")
    var busy = Control()
    busy.requestEnded(quick: true)
    _ = busy.enqueue("queued")
    let result22 = busy.beginBorrowing()
    #expect(!result22, "work is queued")
    var slow = Control()
    slow.requestEnded(quick: false)
    let result23 = slow.beginBorrowing()
    #expect(!result23)
  }

  @Test func aBorrowerWaitsReleasesOrHandsOver() {
    var control = Control()
    control.requestEnded(quick: true)
    let result24 = control.beginBorrowing()
    #expect(result24)
    let result25 = control.afterBorrowedTurn(done: false, transfersRun: true, timerSet: true)
    #expect(result25 == .wait)
    #expect(control.driverIsWaiting)
    // Another request queued meanwhile: the borrower is signalled and hands over.
    let result26 = control.enqueue("other request")
    #expect(result26 == .driver)
    control.woke()
    let result27 = control.afterBorrowedTurn(done: false, transfersRun: true, timerSet: true)
    #expect(result27 == .handOver)
    #expect(control.driver == .networkThread)

    var finished = Control()
    finished.requestEnded(quick: true)
    let result28 = finished.beginBorrowing()
    #expect(result28)
    let result29 = finished.afterBorrowedTurn(done: true, transfersRun: false, timerSet: false)
    #expect(result29 == .release)
    #expect(finished.driver == .nobody)

    var outOfBudget = Control()
    outOfBudget.requestEnded(quick: true)
    let result30 = outOfBudget.beginBorrowing()
    #expect(result30)
    let result31 = outOfBudget.afterBorrowedTurn(done: true, transfersRun: true, timerSet: true)
    #expect(result31 == .handOver)
  }

  /// A job enqueued after the end is refused (the caller ends it), and a second shutdown does
  /// nothing; the shutdown wakes whoever must see it.
  @Test func nothingIsQueuedAfterShutdown() {
    var control = Self.waiting()
    let result32 = control.shutdown()
    #expect(result32 == .driver)
    let result33 = control.shutdown()
    #expect(result33 == nil)
    let result34 = control.enqueue("late job")
    #expect(result34 == nil)
    let taken = control.takeQueue()
    #expect(taken.commands.isEmpty && taken.shuttingDown)
    let result35 = control.afterTurn(transfersRun: true, timerSet: true, tasksToResume: false)
    #expect(result35 == .again)
    var parked = Control()
    let result36 = parked.shutdown()
    #expect(result36 == .networkThread, "a parked thread is woken to end")
  }

  /// The session ended from its own thread (a task run by the loop as its executor): the
  /// shutdown is queued like any command, and the thread, which is running, is not signalled.
  @Test func aShutdownFromTheRunningThreadNeedsNoSignal() {
    var control = Self.waiting()
    control.woke()
    let result37 = control.shutdown()
    #expect(result37 == WakeUp.none)
    #expect(control.takeQueue().shuttingDown)
  }

  typealias WakeUp = Control.WakeUp
}
#endif
