#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

/// The delegate of a data task whose body is read as it arrives (`bytes(for:)`): its server-trust
/// challenges, its response handed on at once, each chunk of its body handed to the reader as it
/// arrives (`ChunkFeed`, shared and tested on Linux: the task is suspended while the reader has
/// a full channel, and resumed when it has taken half), and redirects returned to the session.
/// Not final only so that `make apple-check` can check its methods' signatures by overriding them.
// Unchecked Sendable: its mutable state is behind a lock (`state`); the rest is immutable.
class PinningStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let challenges: PinningChallenges
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
  }
  private let state = Locked(State())
  private let facts = FactsArrival()

  init(
    challenges: PinningChallenges, upload: UploadSource?, channel: ResponseBodyChannel, limit: Int,
    progress: CNTransferProgress?, translate: @escaping @Sendable (Error) -> CNPinnedSessionError,
    respond: @escaping @Sendable (Result<HTTPURLResponse, CNPinnedSessionError>, Int) async -> Bool
  ) {
    self.challenges = challenges
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
      into: channel, limit: limit, host: challenges.settings.host, progress: progress, pause: { task.suspend() },
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

  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    await challenges.answer(challenge, task: task)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    state.withLock { $0.responded = true }
    let (respond, host, progress, task) = (respond, challenges.settings.host, progress, dataTask.taskIdentifier)
    guard let http = response as? HTTPURLResponse else {
      Task {
        _ = await respond(.failure(.invalidResponse(host: host, reason: "not HTTP")), task)
        completionHandler(.cancel)
      }
      return
    }
    Task {
      // Judged before a byte of the body is let through.
      guard await respond(.success(http), task) else { return completionHandler(.cancel) }
      progress?.start(expected: http.expectedContentLength >= 0 ? Int(http.expectedContentLength) : nil)
      completionHandler(.allow)
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    state.withLock { $0.feed }?.receive(data)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
    facts.deliver(TransactionFacts(metrics))
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    // A writer thread still waiting for a chunk is let go (issue 53, L2).
    if case .chunks(let chunks)? = upload { chunks.taskEnded() }
    let translated = error.map { challenges.rejection ?? translate($0) }
    let (responded, done, failure) = state.withLock { state in
      let failure = translated.map { state.stopped ?? $0 }
      state.ended = true
      state.failure = failure ?? (state.responded ? nil : .invalidResponse(host: challenges.settings.host, reason: "no response"))
      defer { state.done = nil }
      return (state.responded, state.done, failure)
    }
    guard responded else {
      let (respond, failure, task) = (respond, failure, task.taskIdentifier)
      let host = challenges.settings.host
      Task {
        _ = await respond(.failure(failure ?? .invalidResponse(host: host, reason: "no response")), task)
        done?.resume()
      }
      return
    }
    done?.resume()
  }

  /// The body again, for a resend (a 401 or 407 answered, a stale connection retried), as
  /// `TaskBodyDelegate` answers it (issue 53, L3: before, the task failed with URLSession's own
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
    newRequest request: URLRequest
  ) async -> URLRequest? { nil }
}
#endif
