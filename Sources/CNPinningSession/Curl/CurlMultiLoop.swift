#if os(Linux) && !CNPINNING_APPLE_CHECK
internal import CCurl
internal import CNPinningCurlShims
import CNPinning
import Foundation

/// One thread driving a libcurl multi handle: every transfer of a session runs on it, so many
/// concurrent requests share one thread, one connection cache and one TLS session cache.
///
/// The loop owns every libcurl object of the session — the multi handle, the share (TLS
/// sessions and DNS answers) and the easy handles — and frees them on its own thread, easy
/// handles first, when it stops.
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

  private let multi: UnsafeMutableRawPointer
  private let share: UnsafeMutableRawPointer
  /// `CURLOPT_RESOLVE` entries, the same for every request of the session.
  private let resolveList: UnsafeMutablePointer<curl_slist>?
  private struct Commands {
    var queue: [Command] = []
    var shuttingDown = false
    /// Set while the loop is (about to be) blocked in `curl_multi_poll`: only then does a new
    /// command need `curl_multi_wakeup` (a system call) to be seen.
    var loopIsWaiting = false
  }
  private let commands = Locked(Commands())
  private let finished = DispatchSemaphore(value: 0)
  /// The loop thread's name.
  let name: String
  // Touched only by the loop thread:
  /// Running transfers, with the handle lent to each. (A few dozen at most: a list, searched.)
  private var active: [(transfer: CurlTransfer, easy: CurlEasy)] = []
  private var idle: [CurlEasy] = []

  init(resolve: [CNHostOverride]) throws(CNPinnedSessionError) {
    guard Self.globalInitialisation == CURLE_OK, let multi = curl_multi_init() else {
      throw .transferFailed(host: "", reason: "libcurl cannot be initialised")
    }
    guard cnp_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.maximumConnections) == CURLM_OK,
      let share = curl_share_init(),
      cnp_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)) == CURLSHE_OK,
      cnp_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue)) == CURLSHE_OK
    else {
      curl_multi_cleanup(multi)
      throw .transferFailed(host: "", reason: "libcurl cannot share TLS sessions")
    }
    self.multi = multi
    self.share = share
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
    curl_multi_wakeup(multi)
    finished.wait()
  }

  private func enqueue(_ command: Command) {
    let (accepted, wake) = commands.withLock { state -> (Bool, Bool) in
      guard !state.shuttingDown else { return (false, false) }
      state.queue.append(command)
      return (true, state.loopIsWaiting)
    }
    if wake {
      curl_multi_wakeup(multi)
    } else if !accepted, case .start(let transfer) = command {
      transfer.finish(.failure(.sessionInvalidated))
    }
  }

  private func run() {
    while true {
      let (queue, shuttingDown) = commands.withLock { state in
        defer { state.queue = [] }
        return (state.queue, state.shuttingDown)
      }
      for command in queue { handle(command) }
      if shuttingDown { break }
      var running: Int32 = 0
      _ = curl_multi_perform(multi, &running)
      if collectFinishedTransfers(), active.isEmpty { awaitNextCommandBriefly() }
      // Block for network events only when no command is waiting; a command enqueued from now
      // on wakes the poll (the flag and the queue change under one lock, so none is missed).
      let mayWait = commands.withLock { state -> Bool in
        guard state.queue.isEmpty, !state.shuttingDown else { return false }
        state.loopIsWaiting = true
        return true
      }
      if mayWait {
        _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        commands.withLock { $0.loopIsWaiting = false }
      }
    }
    for (transfer, easy) in active { finish(transfer, easy, .failure(.sessionInvalidated)) }
    commands.withLock { state in
      for case .start(let transfer) in state.queue { transfer.finish(.failure(.sessionInvalidated)) }
      state.queue = []
    }
    // Easy handles leave the share before it goes; connections (and their TLS state) close
    // with the multi handle; the TLS sessions with the share.
    idle = []
    curl_multi_cleanup(multi)
    curl_share_cleanup(share)
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
      guard let entry = active.first(where: { $0.transfer === transfer }) else { return }
      finish(transfer, entry.easy, .failure(.cancelled))
    case .resume(let transfer):
      // Both directions: the side still not ready pauses again at its next callback.
      guard let entry = active.first(where: { $0.transfer === transfer }) else { return }
      _ = curl_easy_pause(entry.easy.handle, CURLPAUSE_CONT)
    }
  }

  private func start(_ transfer: CurlTransfer) {
    let easy: CurlEasy
    do throws(CNPinnedSessionError) {
      if let reused = idle.popLast() { easy = reused } else { easy = try CurlEasy(share: share) }
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
    guard curl_multi_add_handle(multi, easy.handle) == CURLM_OK else {
      release(easy)
      transfer.finish(.failure(.transferFailed(host: transfer.plan.host, reason: "curl_multi_add_handle failed")))
      return
    }
    active.append((transfer, easy))
  }

  /// Finishes every transfer libcurl is done with; returns whether there was one.
  private func collectFinishedTransfers() -> Bool {
    var remaining: Int32 = 0
    var finishedAny = false
    while let message = curl_multi_info_read(multi, &remaining) {
      guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
        let entry = active.first(where: { $0.easy.handle == handle })
      else { continue }
      let result = entry.easy.result(cnp_curl_message_result(message))
      finish(entry.transfer, entry.easy, entry.transfer.outcome(result))
      finishedAny = true
    }
    return finishedAny
  }

  /// After the last running transfer completes, its caller often sends the next request at
  /// once: watch the queue for a moment (yielding the processor) before blocking in poll, which
  /// saves a sleep and a wake-up per sequential request. Bounded: at most `spinWindow`
  /// nanoseconds; never while other transfers run (their network events wake the poll).
  private func awaitNextCommandBriefly() {
    let deadline = DispatchTime.now().uptimeNanoseconds + Self.spinWindow
    while commands.withLock({ $0.queue.isEmpty }), DispatchTime.now().uptimeNanoseconds < deadline { sched_yield() }
  }
  private static let spinWindow: UInt64 = 100_000

  private func finish(_ transfer: CurlTransfer, _ easy: CurlEasy, _ result: Result<CurlResponse, CNPinnedSessionError>) {
    curl_multi_remove_handle(multi, easy.handle)
    active.removeAll { $0.easy === easy }
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
