#if CNPINNING_LINUX_BACKEND
internal import CCurl
internal import CNPinningCurlShims
import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One thread driving a libcurl multi handle: every transfer of a session runs on it, so many
/// concurrent requests share one thread, one connection cache and one TLS session cache.
///
/// The loop owns every libcurl object of the session — the multi handle (in its event driver),
/// the share (TLS sessions and DNS answers) and the easy handles — and frees them on its own
/// thread, easy handles first, when it stops.
///
/// **The wake-up rule.** The thread blocks in one place only, `CurlEventDriver.waitAndAct`,
/// and that wait ends at once for each kind of work there can be:
/// - a command queued from any thread (start, cancel, resume, shutdown): the producer signals
///   the wake-up descriptor whenever the loop is, or is about to be, waiting. The loop declares
///   that it is about to wait, and checks that the queue is empty, under the lock the producers
///   append under, so a command is either seen before the wait or signalled into it;
/// - a socket libcurl wants watched: its socket callback's requests are applied to the epoll set
///   before every wait;
/// - libcurl's own timer (which is also how libcurl asks to run a transfer just added, resumed,
///   or whose HTTP/2 data another stream's read buffered): the wait's timeout is the timer's
///   deadline, and a due timer is run before waiting, never waited on.
/// There is no other timeout: a wake-up missed would show as a hang, not as a slow request.
final class CurlMultiLoop: @unchecked Sendable {
  private static let counter = Locked(0)
  private enum Command {
    case start(CurlTransfer)
    case cancel(CurlTransfer)
    /// A streamed body can go on: unpause the transfer.
    case resume(CurlTransfer)
  }

  private static let globalInitialisation: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
  /// Idle easy handles kept for reuse.
  private static let maximumIdleHandles = 16
  /// Open connections kept for reuse. libcurl's default (four per easy handle in the multi at
  /// the moment) shrinks whenever few requests are in flight and closes connections that the
  /// next burst then has to open again.
  private static let maximumConnections = 64

  private let driver: CurlEventDriver
  private let share: UnsafeMutableRawPointer
  /// The sockets of the session's connections, for the check of an idle connection before a
  /// request that must not be sent twice. Freed after the multi handle and the share.
  private let sockets: OpaquePointer
  /// An eventfd: written by producers to end the loop's wait. Closed when the loop is released,
  /// after its thread has ended, so that a producer can never write to a closed (or reused) one.
  private let wakeDescriptor: Int32
  /// `CURLOPT_RESOLVE` entries, the same for every request of the session.
  private let resolveList: UnsafeMutablePointer<curl_slist>?
  private struct Commands {
    var queue: [Command] = []
    var shuttingDown = false
    /// Set while the loop is (about to be) blocked waiting and nobody has signalled it yet: the
    /// first producer to find it set signals the wake-up descriptor (a system call) and clears it.
    var loopIsWaiting = false
  }
  private let commands = Locked(Commands())
  private let finished = DispatchSemaphore(value: 0)
  /// The loop thread's name.
  let name: String
  // Touched only by the loop thread:
  /// Running transfers, by the easy handle lent to each.
  private var active: [UnsafeMutableRawPointer: CurlEasy] = [:]
  private var idle: [CurlEasy] = []

  init(resolve: [CNHostOverride], maximumConnectionsPerHost: Int) throws(CNPinnedSessionError) {
    guard Self.globalInitialisation == CURLE_OK else {
      throw .transferFailed(host: "", reason: "libcurl cannot be initialised")
    }
    let wakeDescriptor = cnp_eventfd_create()
    guard wakeDescriptor >= 0 else { throw .transferFailed(host: "", reason: "cannot create the network thread's wake-up") }
    let driver: CurlEventDriver
    do throws(CNPinnedSessionError) {
      driver = try CurlEventDriver(
        maximumConnections: Self.maximumConnections, maximumConnectionsPerHost: maximumConnectionsPerHost,
        wakeDescriptor: wakeDescriptor)
    } catch {
      Glibc.close(wakeDescriptor)
      throw error
    }
    guard let share = curl_share_init(),
      cnp_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)) == CURLSHE_OK,
      cnp_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue)) == CURLSHE_OK
    else {
      driver.close()
      Glibc.close(wakeDescriptor)
      throw .transferFailed(host: "", reason: "libcurl cannot share TLS sessions")
    }
    guard let sockets = cnp_socket_registry_create() else {
      driver.close()
      curl_share_cleanup(share)
      Glibc.close(wakeDescriptor)
      throw .transferFailed(host: "", reason: "cannot allocate the socket registry")
    }
    self.sockets = sockets
    self.driver = driver
    self.share = share
    self.wakeDescriptor = wakeDescriptor
    var list: UnsafeMutablePointer<curl_slist>?
    for override in resolve { list = curl_slist_append(list, "\(override.host):\(override.port):\(override.address)") }
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
    thread.start()
  }

  deinit { Glibc.close(wakeDescriptor) }

  /// Runs `transfer` to completion (or, with a streamed response body, until the body starts;
  /// the rest follows through its channel). Cancelling the calling task cancels the transfer.
  func perform(_ transfer: CurlTransfer) async -> TransferReport {
    // The streamed bodies hold the loop and transfer weakly: neither keeps the other alive.
    transfer.connect(
      wake: { [weak self, weak transfer] in
        guard let self, let transfer else { return }
        enqueue(.resume(transfer))
      },
      cancel: { [weak self, weak transfer] in
        guard let self, let transfer else { return }
        cancel(transfer)
      })
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<TransferReport, Never>) in
        transfer.completion = { continuation.resume(returning: $0) }
        transfer.queuedAt = DispatchTime.now().uptimeNanoseconds
        enqueue(.start(transfer))
      }
    } onCancel: {
      cancel(transfer)
    }
  }

  /// Stops `transfer` with `cancelled`, whether it is queued or running.
  private func cancel(_ transfer: CurlTransfer) {
    transfer.cancellation.withLock { $0 = true }
    enqueue(.cancel(transfer))
  }

  /// Fails every transfer with `sessionInvalidated` and stops the thread.
  func shutdown() {
    let first = commands.withLock { state -> Bool in
      defer { state.shuttingDown = true }
      return !state.shuttingDown
    }
    guard first else { return }
    signalWakeDescriptor()
    finished.wait()
  }

  private func enqueue(_ command: Command) {
    let (accepted, wake) = commands.withLock { state -> (Bool, Bool) in
      guard !state.shuttingDown else { return (false, false) }
      state.queue.append(command)
      defer { state.loopIsWaiting = false }
      return (true, state.loopIsWaiting)
    }
    if wake {
      signalWakeDescriptor()
    } else if !accepted, case .start(let transfer) = command {
      transfer.finish(.failure(.sessionInvalidated))
    }
  }

  private func signalWakeDescriptor() { cnp_eventfd_signal(wakeDescriptor) }

  private func run() {
    while true {
      let (queue, shuttingDown) = commands.withLock { state in
        defer { state.queue = [] }
        return (state.queue, state.shuttingDown)
      }
      for command in queue { handle(command) }
      if shuttingDown { break }
      driver.runDueTimer()
      if collectFinishedTransfers(), active.isEmpty { awaitNextCommandBriefly() }
      // Wait only when no command is queued and libcurl's timer is not due; a command queued
      // from now on signals the wait (the flag and the queue change under one lock).
      let mayWait = commands.withLock { state -> Bool in
        guard state.queue.isEmpty, !state.shuttingDown else { return false }
        state.loopIsWaiting = true
        return true
      }
      guard mayWait else { continue }
      driver.waitAndAct(wakeDescriptor: wakeDescriptor)
      commands.withLock { $0.loopIsWaiting = false }
      if collectFinishedTransfers(), active.isEmpty { awaitNextCommandBriefly() }
    }
    for easy in active.values {
      if let transfer = easy.transfer { finish(transfer, easy, .failure(.sessionInvalidated)) }
    }
    commands.withLock { state in
      for case .start(let transfer) in state.queue { transfer.finish(.failure(.sessionInvalidated)) }
      state.queue = []
    }
    // Easy handles leave the share before it goes; connections (and their TLS state) close
    // with the multi handle; the TLS sessions with the share.
    idle = []
    driver.close()
    curl_share_cleanup(share)
    cnp_socket_registry_free(sockets)
    curl_slist_free_all(resolveList)
    finished.signal()
  }

  private func handle(_ command: Command) {
    switch command {
    case .start(let transfer):
      if transfer.cancellation.withLock({ $0 }) {
        transfer.finish(.failure(.cancelled))
        return
      }
      start(transfer)
    case .cancel(let transfer):
      guard let easy = activeHandle(of: transfer) else { return }
      finish(transfer, easy, .failure(.cancelled))
    case .resume(let transfer):
      // Both directions: the side still not ready pauses again at its next callback. libcurl
      // sets its timer to run the transfer at once.
      guard let easy = activeHandle(of: transfer) else { return }
      _ = curl_easy_pause(easy.handle, CURLPAUSE_CONT)
    }
  }

  private func activeHandle(of transfer: CurlTransfer) -> CurlEasy? {
    active.values.first { $0.transfer === transfer }
  }

  private func start(_ transfer: CurlTransfer) {
    let easy: CurlEasy
    do throws(CNPinnedSessionError) {
      if let reused = idle.popLast() { easy = reused } else { easy = try CurlEasy(share: share, sockets: sockets) }
    } catch {
      transfer.finish(.failure(error))
      return
    }
    do throws(CNPinnedSessionError) {
      try easy.bind(transfer, resolve: resolveList)
    } catch {
      release(easy)
      transfer.finish(.failure(error))
      return
    }
    // Adding sets libcurl's timer to now: the transfer starts on the loop's next turn.
    guard curl_multi_add_handle(driver.multi, easy.handle) == CURLM_OK else {
      release(easy)
      transfer.finish(.failure(.transferFailed(host: transfer.plan.host, reason: "curl_multi_add_handle failed")))
      return
    }
    active[easy.handle] = easy
  }

  /// Finishes every transfer libcurl is done with; returns whether there was one.
  private func collectFinishedTransfers() -> Bool {
    var remaining: Int32 = 0
    var finishedAny = false
    while let message = curl_multi_info_read(driver.multi, &remaining) {
      guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle, let easy = active[handle],
        let transfer = easy.transfer
      else { continue }
      let result = easy.result(cnp_curl_message_result(message))
      finish(transfer, easy, transfer.outcome(result))
      finishedAny = true
    }
    return finishedAny
  }

  /// After the last running transfer completes, its caller often sends the next request at
  /// once: watch the queue for a moment (yielding the processor) before blocking, which saves
  /// a sleep and a wake-up per sequential request. Bounded: at most `spinWindow` nanoseconds;
  /// never while other transfers run (their events end the wait).
  private func awaitNextCommandBriefly() {
    let deadline = DispatchTime.now().uptimeNanoseconds + Self.spinWindow
    while commands.withLock({ $0.queue.isEmpty }), DispatchTime.now().uptimeNanoseconds < deadline { sched_yield() }
  }
  private static let spinWindow: UInt64 = 100_000

  private func finish(_ transfer: CurlTransfer, _ easy: CurlEasy, _ result: Result<CurlResponse, CNPinnedSessionError>) {
    curl_multi_remove_handle(driver.multi, easy.handle)
    active[easy.handle] = nil
    easy.unbind()
    transfer.finish(result)  // the caller resumes while the handle is put away
    keep(easy)
  }

  /// Takes a handle back from its request and keeps it for the next one.
  private func release(_ easy: CurlEasy) {
    easy.unbind()
    keep(easy)
  }

  private func keep(_ easy: CurlEasy) {
    if idle.count < Self.maximumIdleHandles { idle.append(easy) }
  }
}
#endif
