#if CNPINNING_LINUX_BACKEND
internal import CCurl
internal import CNPinningCurlShims
@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The libcurl multi handle of a session and the thread that drives it: every job of a
/// session runs through it, so many concurrent requests share one connection cache and one TLS
/// session cache.
///
/// The loop owns every libcurl object of the session — the multi handle (in its event driver),
/// the share (TLS sessions and DNS answers) and the easy handles — and frees them on its network
/// thread, easy handles first, when it stops.
///
/// **Who drives.** Exactly one thread at a time, the *driver*, touches libcurl, the easy
/// handles and the running transfers; `control`'s lock hands the role over, which orders what
/// one driver wrote before what the next reads. The driver is the network thread, except when
/// the session is idle (nothing running, nothing queued): then the network thread is parked,
/// and a request that arrives may drive its own transfer on the calling thread (`borrow`),
/// for at most `borrowBudget`. On loopback and fast networks the whole exchange ends there,
/// without the two thread hand-offs (to the network thread and back) that otherwise cost more
/// than libcurl's own work. The borrower hands the role to the network thread as soon as its
/// response is in, its budget is spent, or another request, a cancellation or a shutdown is
/// queued; it never takes another request's work. Only a request whose predecessor was quick
/// (took less than the budget) borrows: for a slow host, or on a machine so busy that threads
/// wait to run, borrowing would only hold a thread of the caller's for the budget and then hand
/// over, and a new session's first request (a handshake, as a rule) goes to the network thread.
///
/// **The wake-up rule.** A driver blocks in one place only, `CurlEventDriver.waitAndAct`, and
/// that wait ends at once for each kind of work there can be:
/// - a command queued from any thread (start, cancel, resume, shutdown): the producer signals
///   the wake-up descriptor whenever the driver is, or is about to be, waiting. The driver
///   declares that it is about to wait, and checks that the queue is empty, under the lock the
///   producers append under, so a command is either seen before the wait or signalled into it;
/// - a socket libcurl wants watched: its socket callback's requests are applied to the epoll set
///   before every wait;
/// - libcurl's own timer (which is also how libcurl asks to run a transfer just added, resumed,
///   or whose HTTP/2 data another stream's read buffered): the wait's timeout is the timer's
///   deadline, and a due timer is run before waiting, never waited on.
/// A borrower's wait also ends at its budget. The parked network thread waits on its own
/// descriptor, which is signalled exactly when the role is handed to it: by a producer that
/// queues a command while nobody drives, or by a borrower that hands over. It parks only
/// when nothing runs, under the same lock, so nothing can be left without a driver.
/// There is no other timeout: a wake-up missed would show as a hang, not as a slow request.
///
/// The decisions (who drives, whom to signal, when to wait, park or hand over) are
/// ``CurlLoopControl``'s, a value kept under the lock and tested without threads; this type runs
/// the actions it returns, outside the lock.
// Its driver-only variables are @exclusivity(unchecked) (docs/decisions/session-linux.md, "No runtime exclusivity checks on the driver's variables").
// Unchecked Sendable: the multi handle, easy handles and transfers are touched only by the driver, one thread at a time, handed over under the loop's lock (above).
package final class CurlMultiLoop: @unchecked Sendable {
  private static let counter = Locked(0)
  /// Work for the driver, queued from any thread.
  enum Command {
    case start(CurlJob)
    case cancel(CurlJob)
    /// A streamed body can go on: unpause the job.
    case resume(CurlJob)
    /// A task's job, enqueued on the loop as its task executor (`enqueue(_: ExecutorJob)`).
    case run(UnownedJob)
  }

  /// Open connections kept for reuse. libcurl's default (four per easy handle in the multi at
  /// the moment) shrinks whenever few requests are in flight and closes connections that the
  /// next burst then has to open again.
  private static let maximumConnections = 64
  /// The longest a request drives libcurl on its caller's thread (nanoseconds; 0: never), by
  /// default 1 ms (``CNPinnedSessionConfiguration/borrowBudget``): long enough for a request on an
  /// open connection to a server nearby, short enough to be a brief wait for the caller's
  /// thread, which sleeps in epoll meanwhile.
  private let borrowBudget: UInt64

  private let driver: CurlEventDriver
  private let share: UnsafeMutableRawPointer
  /// The sockets of the session's connections, for the check of an idle connection before a
  /// request that must not be sent twice. Freed after the multi handle and the share.
  private let sockets: OpaquePointer
  /// The wake-up eventfds (``CurlLoopResources``), closed when the loop is released, after its
  /// thread has ended, so that a producer can never write to a closed (or reused) one.
  private let wakeDescriptor: Int32
  private let parkDescriptor: Int32
  /// ``CURLOPT_RESOLVE`` entries, the same for every request of the session.
  private let resolveList: UnsafeMutablePointer<curl_slist>?
  /// Who drives, what is queued, and whom to signal: the loop's decisions, under its lock.
  private let control = Locked(CurlLoopControl<Command>())
  private let finished = DispatchSemaphore(value: 0)
  /// The network thread's name.
  package let name: String
  /// The network thread, which runs the loop and the tasks enqueued on it as an executor (set
  /// before it starts).
  private let networkThread = Locked<Thread?>(nil)
  /// How many jobs ran on their caller's thread (`borrow`).
  package var borrowedTransfers: Int { control.withLock { $0.borrowed } }
  /// How many times work queued for the loop woke its driver or its parked network thread.
  package var wakeUpSignals: Int { control.withLock { $0.signals } }
  // Touched only by the driver:
  /// Running transfers, by the easy handle lent to each.
  @exclusivity(unchecked) private var active: [UnsafeMutableRawPointer: CurlEasy] = [:]
  @exclusivity(unchecked) private var handles = CurlHandlePool()
  /// Tasks whose jobs ended, to be resumed once the driver has decided to wait or park
  /// (``takeEndedTransfers``).
  @exclusivity(unchecked) private var endedTransfers: [CurlDelivery.Resumption] = []

  /// A loop whose requests connect to `resolve`'s addresses for their hosts and ports
  /// (`CURLOPT_RESOLVE`), at most `maximumConnectionsPerHost` at once to one host, and that
  /// drives an idle session's request on its caller's thread for at most `borrowBudget`.
  package init(
    resolve: [(host: String, port: Int, address: String)], maximumConnectionsPerHost: Int, borrowBudget: Duration
  ) throws(CurlSetupError) {
    let resources = try CurlLoopResources(
      maximumConnections: Self.maximumConnections, maximumConnectionsPerHost: maximumConnectionsPerHost)
    driver = resources.driver
    share = resources.share
    sockets = resources.sockets
    wakeDescriptor = resources.wakeDescriptor
    parkDescriptor = resources.parkDescriptor
    let (seconds, attoseconds) = min(max(borrowBudget, .zero), .seconds(3600)).components
    self.borrowBudget = UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    var list: UnsafeMutablePointer<curl_slist>?
    for entry in resolve { list = curl_slist_append(list, "\(entry.host):\(entry.port):\(entry.address)") }
    resolveList = list
    // A per-process number, so that tests can tell this session's thread from others'.
    let number = Self.counter.withLock { value -> Int in
      value += 1
      return value
    }
    name = "CNPSession-\(number)"
    let thread = Thread { [self] in
      ThreadName.setCurrent(name)
      run()
    }
    thread.name = name
    networkThread.withLock { $0 = thread }
    thread.start()
  }

  /// Whether the calling code runs on the network thread (as a task enqueued on the loop as its
  /// executor does).
  package var isOnNetworkThread: Bool { networkThread.withLock { $0 } === Thread.current }

  deinit {
    Glibc.close(wakeDescriptor)
    Glibc.close(parkDescriptor)
  }

  /// Runs `job` until it is delivered: at its end or, with a streamed response body, when the
  /// session delivers it as the body starts (the rest follows through the session's channel).
  /// Cancelling the calling task cancels the job.
  package nonisolated(nonsending) func perform(_ job: CurlJob) async {
    job.queuedAt = Uptime.nanoseconds
    await withTaskCancellationHandler {
      if !borrow(for: job) { enqueue(.start(job)) }
      await job.delivery.take()
    } onCancel: {
      cancel(job)
    }
    let quick = job.networkTime < borrowBudget
    control.withLock { $0.requestEnded(quick: quick) }
  }

  /// Unpauses `job`, whose streamed body (either way) can go on.
  package func resume(_ job: CurlJob) { enqueue(.resume(job)) }

  /// Stops `job` (its end: `cancelled`), whether it is queued or running.
  package func cancel(_ job: CurlJob) {
    job.delivery.cancel()
    enqueue(.cancel(job))
  }

  /// Ends every job (`sessionStopped`) and stops the thread.
  package func shutdown() {
    guard let wakeUp = control.withLock({ $0.shutdown() }) else { return }
    send(wakeUp)
    // On the network thread (a task run by the loop as its executor, or the last reference to
    // the session dropped there), the loop ends once that job returns.
    if !isOnNetworkThread { finished.wait() }
  }

  func enqueue(_ command: Command) {
    if let wakeUp = control.withLock({ $0.enqueue(command) }) {
      send(wakeUp)
    } else {
      switch command {
      case .start(let job): job.end(.sessionStopped)?.resume()
      case .run(let job): runElsewhere(job)
      case .cancel, .resume: break
      }
    }
  }

  private func send(_ wakeUp: CurlLoopControl<Command>.WakeUp) {
    switch wakeUp {
    case .none: break
    case .driver: cnp_eventfd_signal(wakeDescriptor)
    case .networkThread: cnp_eventfd_signal(parkDescriptor)
    }
  }

  private func run() {
    // Parked until the first command makes this thread the driver.
    cnp_eventfd_await(parkDescriptor)
    while true {
      // In a scope of its own: the commands (and the jobs they hold) are let go of before the
      // thread waits or parks, not kept until its next turn.
      do {
        let (queue, shuttingDown) = control.withLock { $0.takeQueue() }
        for command in queue { handle(command) }
        if shuttingDown { break }
      }
      driver.runDueTimer()
      collectFinishedTransfers()
      let ended = takeEndedTransfers()
      // Tasks to resume are resumed after the decision (a task that sends its next request at
      // once finds an idle session idle) and before the wait, which work queued meanwhile
      // cancels (`CurlLoopControl.resuming`).
      var next = control.withLock {
        $0.afterTurn(transfersRun: !active.isEmpty, timerSet: driver.hasTimer, tasksToResume: !ended.isEmpty)
      }
      if !ended.isEmpty {
        for resumption in ended { resumption.resume() }
        if next != .again { next = control.withLock { $0.resumed(after: next) } }
      }
      switch next {
      case .again:
        continue
      case .park:
        // Signalled by whoever hands the role back (and made this thread the driver).
        cnp_eventfd_await(parkDescriptor)
      case .wait:
        driver.waitAndAct(wakeDescriptor: wakeDescriptor)
        control.withLock { $0.woke() }
      }
    }
    for easy in active.values {
      if let job = easy.job { finish(job, easy, .sessionStopped) }
    }
    for command in control.withLock({ $0.takeQueue().commands }) {
      switch command {
      case .start(let job): end(job, .sessionStopped)
      case .run(let job): runElsewhere(job)
      case .cancel, .resume: break
      }
    }
    for resumption in takeEndedTransfers() { resumption.resume() }
    // Easy handles leave the share before it goes; connections (and their TLS state) close
    // with the multi handle; the TLS sessions with the share.
    handles.removeAll()
    driver.close()
    curl_share_cleanup(share)
    cnp_socket_registry_free(sockets)
    curl_slist_free_all(resolveList)
    finished.signal()
  }

  /// Runs `transfer` on the calling thread if the session is idle and its latest request was
  /// quick (see the type's comment); returns false, having done nothing, when it is not.
  /// Otherwise returns once the transfer has reported or the role is handed on.
  private func borrow(for transfer: CurlJob) -> Bool {
    let deadline = Uptime.nanoseconds &+ borrowBudget
    guard control.withLock({ $0.beginBorrowing() }) else { return false }
    handle(.start(transfer))
    while true {
      driver.runDueTimer()
      collectFinishedTransfers()
      // Normally none: the borrower's own report needs no resumption, and it runs no other.
      let ended = takeEndedTransfers()
      let done = transfer.delivery.hasDelivered || Uptime.nanoseconds >= deadline
      let next = control.withLock {
        $0.afterBorrowedTurn(done: done, transfersRun: !active.isEmpty, timerSet: driver.hasTimer)
      }
      for resumption in ended { resumption.resume() }
      switch next {
      case .wait:
        driver.waitAndAct(wakeDescriptor: wakeDescriptor, until: deadline)
        control.withLock { $0.woke() }
      case .release:
        return true
      case .handOver:
        send(.networkThread)
        return true
      }
    }
  }

  private func handle(_ command: Command) {
    switch command {
    case .start(let job):
      if job.delivery.isCancelled {
        end(job, .cancelled)
        return
      }
      start(job)
    case .cancel(let job):
      guard let easy = activeHandle(of: job) else { return }
      finish(job, easy, .cancelled)
    case .resume(let job):
      // Both directions: the side still not ready pauses again at its next callback. libcurl
      // sets its timer to run the job at once.
      guard let easy = activeHandle(of: job) else { return }
      _ = curl_easy_pause(easy.handle, CURLPAUSE_CONT)
    case .run(let job):
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  private func activeHandle(of job: CurlJob) -> CurlEasy? {
    active.values.first { $0.job === job }
  }

  private func start(_ job: CurlJob) {
    let easy: CurlEasy
    do throws(CurlSetupError) {
      easy = try handles.take(share: share, sockets: sockets)
    } catch {
      end(job, .notStarted(reason: error.reason))
      return
    }
    do throws(CurlSetupError) {
      try easy.bind(job, resolve: resolveList)
    } catch {
      handles.release(easy)
      end(job, .notStarted(reason: error.reason))
      return
    }
    // Adding sets libcurl's timer to now: the job starts on the loop's next turn.
    guard curl_multi_add_handle(driver.multi, easy.handle) == CURLM_OK else {
      handles.release(easy)
      end(job, .notStarted(reason: "curl_multi_add_handle failed"))
      return
    }
    active[easy.handle] = easy
  }

  /// Finishes every job libcurl is done with.
  private func collectFinishedTransfers() {
    var remaining: Int32 = 0
    while let message = curl_multi_info_read(driver.multi, &remaining) {
      guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle, let easy = active[handle],
        let job = easy.job
      else { continue }
      let completion = job.completion(easy.result(cnp_curl_message_result(message)))
      finish(job, easy, .finished(completion))
    }
  }

  private func finish(_ job: CurlJob, _ easy: CurlEasy, _ result: CurlEnd) {
    curl_multi_remove_handle(driver.multi, easy.handle)
    active[easy.handle] = nil
    easy.unbind()
    end(job, result)
    handles.keep(easy)
  }

  /// Ends `job`; the task waiting for it is resumed from ``takeEndedTransfers``.
  private func end(_ job: CurlJob, _ result: CurlEnd) {
    if let resumption = job.end(result) { endedTransfers.append(resumption) }
  }

  /// The tasks whose jobs ended, to resume. The driver takes them before it decides whether to
  /// wait, park or hand over, and resumes them after: a task that sends its next request at
  /// once then finds an idle session idle (resuming touches nothing of libcurl's).
  private func takeEndedTransfers() -> [CurlDelivery.Resumption] {
    guard !endedTransfers.isEmpty else { return [] }
    defer { endedTransfers.removeAll(keepingCapacity: true) }
    return endedTransfers
  }
}

#endif
