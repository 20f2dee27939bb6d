#if canImport(CCurl)
  internal import CCurl
  internal import CNPinningShims
  import CNPinning
  import Foundation

  /// One thread driving a libcurl multi handle: every transfer of a session runs on it, so many
  /// concurrent requests share one thread and one connection cache.
  final class CurlMultiLoop: @unchecked Sendable {
    private static let counter = Locked(0)
    private enum Command {
      case start(CurlTransfer)
      case cancel(CurlTransfer)
    }

    private static let globalInitialisation: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private let multi: UnsafeMutableRawPointer
    private let commands = Locked<(queue: [Command], shuttingDown: Bool)>(([], false))
    private let finished = DispatchSemaphore(value: 0)
    /// The loop thread's name.
    private(set) var name = ""
    /// Active transfers by easy handle; touched only by the loop thread.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    init() throws(CNPinnedSessionError) {
      guard Self.globalInitialisation == CURLE_OK, let multi = curl_multi_init() else {
        throw .transferFailed(host: "", reason: "libcurl cannot be initialised")
      }
      self.multi = multi
      let thread = Thread { [self] in run() }
      // A per-process number, so that tests can tell this session's thread from others'.
      let number = Self.counter.withLock { value -> Int in
        value += 1
        return value
      }
      name = "CNPSession-\(number)"
      thread.name = name
      thread.start()
    }

    /// Runs `transfer` to completion. Cancelling the calling task cancels the transfer.
    func perform(_ transfer: CurlTransfer) async throws(CNPinnedSessionError) -> TransferOutcome {
      let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<TransferOutcome, CNPinnedSessionError>, Never>) in
          transfer.completion = { continuation.resume(returning: $0) }
          enqueue(.start(transfer))
        }
      } onCancel: {
        transfer.cancellation.withLock { $0 = true }
        enqueue(.cancel(transfer))
      }
      return try result.get()
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
      let accepted = commands.withLock { state -> Bool in
        guard !state.shuttingDown else { return false }
        state.queue.append(command)
        return true
      }
      if accepted {
        curl_multi_wakeup(multi)
      } else if case .start(let transfer) = command {
        transfer.completion?(.failure(.sessionInvalidated))
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
        collectFinishedTransfers()
        _ = curl_multi_poll(multi, nil, 0, 1000, nil)
      }
      for transfer in Array(active.values) { finish(transfer, .failure(.sessionInvalidated)) }
      commands.withLock { state in
        for case .start(let transfer) in state.queue { transfer.completion?(.failure(.sessionInvalidated)) }
        state.queue = []
      }
      curl_multi_cleanup(multi)
      finished.signal()
    }

    private func handle(_ command: Command) {
      switch command {
      case .start(let transfer):
        if transfer.cancellation.withLock({ $0 }) {
          transfer.completion?(.failure(.cancelled))
          return
        }
        guard curl_multi_add_handle(multi, transfer.handle) == CURLM_OK else {
          transfer.completion?(.failure(.transferFailed(host: transfer.host, reason: "curl_multi_add_handle failed")))
          return
        }
        active[transfer.handle] = transfer
      case .cancel(let transfer):
        guard active[transfer.handle] === transfer else { return }
        finish(transfer, .failure(.cancelled))
      }
    }

    private func collectFinishedTransfers() {
      var remaining: Int32 = 0
      while let message = curl_multi_info_read(multi, &remaining) {
        guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
          let transfer = active[handle]
        else { continue }
        let code = cnp_curl_message_result(message)
        finish(transfer, transfer.outcome(code))
      }
    }

    private func finish(_ transfer: CurlTransfer, _ result: Result<TransferOutcome, CNPinnedSessionError>) {
      curl_multi_remove_handle(multi, transfer.handle)
      active[transfer.handle] = nil
      let completion = transfer.completion
      transfer.completion = nil
      completion?(result)
    }
  }
#endif
