@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a data task whose body is read as it arrives (`bytes(for:)` on Apple
/// platforms): its response handed on at once, each chunk of its body handed to the reader as it
/// arrives (``ChunkFeed``: the task is suspended while the reader has a full channel, and resumed
/// when it has taken half), and redirects returned to the session. The Apple transport's is a
/// subclass that adds the server-trust challenge (`PinningStreamDelegate`). Platform-neutral,
/// tested on Linux with swift-corelibs-foundation's URLSession.
// Unchecked Sendable: its mutable state is behind a lock (`state`); the rest is immutable.
class StreamBodyDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  /// The host, for errors.
  private let host: String
  /// Why the task's challenge was refused, if it was: the task's outcome then.
  private let rejection: @Sendable () -> CNPinnedSessionError?
  /// The request body streamed, if any: a failed one cancels the task.
  private let upload: UploadSource?
  private let channel: ResponseBodyChannel
  private let limit: Int
  private let progress: CNTransferProgress?
  private let translate: @Sendable (Error) -> CNPinnedSessionError
  /// Called with the response (and the task's identifier) before the body: delivers it to the
  /// caller and returns true, or refuses it and returns false.
  private let respond: @Sendable (Result<HTTPURLResponse, CNPinnedSessionError>, Int) async -> Bool

  private struct State {
    var feed: ChunkFeed?
    var responded = false
    var done: CheckedContinuation<Void, Never>?
    var ended = false
    var failure: CNPinnedSessionError?
    /// Why the task was stopped here (its outcome, whatever URLSession reports).
    var stopped: CNPinnedSessionError?
    /// The head was accepted: the body goes to the reader.
    var accepted = false
    /// Body that came before the head's answer, held until it (Apple's URLSession waits for
    /// the answer; swift-corelibs-foundation does not), and its size.
    var early: [Data] = []
    var earlyBytes = 0
  }
  private let state = Locked(State())
  private let facts = FactsArrival()
  /// The head has been answered: the task's end waits for it (Apple's URLSession cannot end a
  /// task before the answer; swift-corelibs-foundation can, and then a refusal or the body held
  /// for the answer came after the stream had ended as if whole).
  private let answered = ResponseHeadHandOff<Void>()

  init(
    host: String, rejection: @escaping @Sendable () -> CNPinnedSessionError?, upload: UploadSource?,
    channel: ResponseBodyChannel, limit: Int, progress: CNTransferProgress?,
    translate: @escaping @Sendable (Error) -> CNPinnedSessionError,
    respond: @escaping @Sendable (Result<HTTPURLResponse, CNPinnedSessionError>, Int) async -> Bool
  ) {
    self.host = host
    self.rejection = rejection
    self.upload = upload
    self.channel = channel
    self.limit = limit
    self.progress = progress
    self.translate = translate
    self.respond = respond
  }

  /// What the task's metrics say about the connection it used, waiting a bounded time for them
  /// once the task has ended.
  func transactionFacts() async -> TransactionFacts? { await facts.facts() }

  /// Runs `request` as a data task of `session` and returns when its body has ended, with why it
  /// failed (nil: whole) and the task's identifier; the caller ends the channel (after judging the
  /// connection once more). Cancelling the calling task cancels the task.
  func run(_ request: URLRequest, in session: URLSession) async -> (CNPinnedSessionError?, task: Int) {
    let task = session.dataTask(with: request)
    task.delegate = self
    if case .chunks(let chunks)? = upload { chunks.onFailure { [weak task] _ in task?.cancel() } }
    let feed = ChunkFeed(
      into: channel, limit: limit, host: host, progress: progress, pause: { task.suspend() },
      resume: { task.resume() }, cancel: { task.cancel() })
    state.withLock { $0.feed = feed }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let ended = state.withLock { state -> Bool in
          if !state.ended { state.done = done }
          return state.ended
        }
        if ended { done.resume() } else { task.resume() }
      }
    } onCancel: {
      task.cancel()
    }
    return (state.withLock { $0.failure }, task.taskIdentifier)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    state.withLock { $0.responded = true }
    let (respond, host, progress, task) = (respond, host, progress, dataTask.taskIdentifier)
    guard let http = response as? HTTPURLResponse else {
      let notHTTP = CNPinnedSessionError.invalidResponse(host: host, reason: "not HTTP")
      Task {
        _ = await respond(.failure(notHTTP), task)
        self.refuse(notHTTP)
        completionHandler(.cancel)
        dataTask.cancel()
        self.answered.deliver(.success(()))
      }
      return
    }
    Task {
      // Judged before a byte of the body is let through.
      guard await respond(.success(http), task) else {
        // Refused: the task is cancelled, whatever URLSession makes of the disposition
        // (swift-corelibs-foundation reads none), and nothing reaches the reader.
        self.refuse(self.rejection() ?? .cancelled)
        completionHandler(.cancel)
        dataTask.cancel()
        return self.answered.deliver(.success(()))
      }
      progress?.start(expected: http.expectedContentLength >= 0 ? Int(http.expectedContentLength) : nil)
      self.accept()
      completionHandler(.allow)
      self.answered.deliver(.success(()))
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let (feed, overLimit) = state.withLock { state -> (ChunkFeed?, Bool) in
      if state.accepted { return (state.feed, false) }
      guard state.feed != nil else { return (nil, false) }
      state.early.append(data)
      state.earlyBytes += data.count
      return (nil, state.earlyBytes > limit)
    }
    feed?.receive(data)
    if overLimit {
      // Nothing more is held: what was is dropped, and so is whatever comes before the cancel.
      refuse(.responseTooLarge(host: host, limit: limit))
      dataTask.cancel()
    }
  }

  /// The head is accepted: the body held until now goes to the reader, in order, before any
  /// that comes later.
  private func accept() {
    while true {
      let (feed, early) = state.withLock { state -> (ChunkFeed?, [Data]) in
        defer { state.early = [] }
        if state.early.isEmpty { state.accepted = true }
        return (state.feed, state.early)
      }
      guard !early.isEmpty else { return }
      for data in early { feed?.receive(data) }
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
    facts.deliver(TransactionFacts(metrics))
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    // A writer thread still waiting for a chunk is let go (issue 53, L2).
    if case .chunks(let chunks)? = upload { chunks.taskEnded() }
    let translated = error.map { rejection() ?? translate($0) }
    guard state.withLock({ $0.responded }) else {
      let (done, failure) = end(translated)
      let (respond, task, host) = (respond, task.taskIdentifier, host)
      Task {
        _ = await respond(.failure(failure ?? .invalidResponse(host: host, reason: "no response")), task)
        done?.resume()
      }
      return
    }
    Task {
      _ = try? await answered.response()
      end(translated).done?.resume()
    }
  }

  /// Ends the stream: why it was stopped here, else the task's error (`translated`), else whole
  /// if it had a response. Returns the waiter in `run` and the failure.
  private func end(_ translated: CNPinnedSessionError?) -> (
    done: CheckedContinuation<Void, Never>?, failure: CNPinnedSessionError?
  ) {
    state.withLock { state in
      let failure = state.stopped ?? translated
      state.ended = true
      state.failure = failure ?? (state.responded ? nil : .invalidResponse(host: host, reason: "no response"))
      defer { state.done = nil }
      return (state.done, failure)
    }
  }

  /// The head was refused (`reason`): nothing more reaches the reader, and the stream ends with it.
  private func refuse(_ reason: CNPinnedSessionError) {
    state.withLock {
      $0.feed = nil
      $0.early = []
      $0.stopped = $0.stopped ?? reason
    }
  }

  /// The body again, for a resend (a 401 or 407 answered, a stale connection retried), as
  /// ``TaskBodyDelegate`` answers it (issue 53, L3: before, the task failed with URLSession's own
  /// error, naming neither).
  func urlSession(
    _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
  ) {
    let stream = upload?.reopened()
    if stream == nil, upload != nil {
      state.withLock { $0.stopped = $0.stopped ?? UploadSource.askedAgain }
      task.cancel()
    }
    completionHandler(stream)
  }

  /// Redirects come back to the session, which judges and follows each hop.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}
