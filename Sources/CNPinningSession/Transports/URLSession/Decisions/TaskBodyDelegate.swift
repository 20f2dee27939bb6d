@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession data task's response, taken as it arrives: the size limit is counted as bytes
/// arrive (a body, or a decompressed bomb, never grows past it), and a download is written to its
/// file chunk by chunk. Redirects come back to the caller; a file upload is reopened when
/// URLSession must send it again. (A stream, read as it arrives, has a delegate of its own,
/// ``StreamBodyDelegate``, feeding ``ChunkFeed``.)
///
/// The Apple transport's task delegate is a subclass (it adds the server-trust challenge).
/// Platform-neutral: tested on Linux with swift-corelibs-foundation's URLSession.
// Unchecked Sendable: its mutable state is behind a lock (`state`); the plan is immutable.
class TaskBodyDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  /// What the task is for.
  struct Plan: Sendable {
    let host: String
    let destination: BodyDestination
    /// The most body bytes accepted: beyond, the task is cancelled with `responseTooLarge`.
    let limit: Int
    let upload: UploadSource?
    let progress: CNTransferProgress?
  }

  private let plan: Plan
  private let state = Locked(State())
  private let facts = FactsArrival()

  private struct State {
    var task: URLSessionDataTask?
    var response: HTTPURLResponse?
    var body = Data()
    var received = 0
    /// Why the task was stopped from here (a limit, a failed write), if it was.
    var stopped: CNPinnedSessionError?
    /// The caller, until the task has ended.
    var caller: CheckedContinuation<TransferOutcome, Error>?
    /// The outcome, when the task ended before the caller waited (cancelled before it started).
    var ended: Result<TransferOutcome, Error>?
    /// The caller was cancelled: the task is not started, or is cancelled.
    var cancelled = false
  }

  init(plan: Plan) { self.plan = plan }

  /// Runs `request` as a data task of `session` and returns its outcome once it has ended, with
  /// the task's identifier (its verdict is judged whatever the outcome): with the whole body for
  /// memory, with the body in the file for a download. Cancelling the calling task cancels the task.
  func run(_ request: URLRequest, in session: URLSession) async -> (Outcome, task: Int) {
    let task = session.dataTask(with: request)
    task.delegate = self
    state.withLock { $0.task = task }
    // A request body cut short is never sent as if whole: its failure cancels the task.
    if case .chunks(let chunks)? = plan.upload { chunks.onFailure { [weak self] failure in self?.stop(failure) } }
    let result: Result<TransferOutcome, Error>
    do {
      result = .success(
        try await withTaskCancellationHandler {
          try await withCheckedThrowingContinuation { continuation in
            // A caller cancelled before this point never starts the task: URLSession need not
            // report a task cancelled before it was resumed (swift-corelibs-foundation does not).
            let ready = state.withLock { state -> Result<TransferOutcome, Error>? in
              if state.cancelled { return .failure(CancellationError()) }
              if state.ended == nil { state.caller = continuation }
              return state.ended
            }
            if let ready { continuation.resume(with: ready) } else { task.resume() }
          }
        } onCancel: {
          state.withLock { $0.cancelled = true }
          task.cancel()
        })
    } catch {
      result = .failure(error)
    }
    return (Outcome(result: result), task.taskIdentifier)
  }

  /// How a task ended, to be turned into the session's terms by whoever knows the host.
  struct Outcome: Sendable {
    let result: Result<TransferOutcome, Error>

    /// The outcome, or the session's error for the failure (`translate` for URLSession's own).
    func get(_ translate: (Error) -> CNPinnedSessionError) throws(CNPinnedSessionError) -> TransferOutcome {
      switch result {
      case .success(let outcome): return outcome
      case .failure(let error as CNPinnedSessionError): throw error
      case .failure(is CancellationError): throw .cancelled
      case .failure(let error): throw translate(error)
      }
    }
  }

  // MARK: - URLSessionDataDelegate

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    guard let http = response as? HTTPURLResponse else {
      stop(.invalidResponse(host: plan.host, reason: "not HTTP"))
      completionHandler(.cancel)
      return
    }
    let expected = http.expectedContentLength >= 0 ? Int(http.expectedContentLength) : nil
    plan.progress?.start(expected: expected)
    state.withLock {
      $0.response = http
      $0.received = 0
      $0.body = Data()
    }
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    // Bytes URLSession delivers after the task was stopped are dropped.
    let admitted = state.withLock { state -> Bool? in
      guard state.stopped == nil else { return nil }
      state.received += data.count
      return state.received <= plan.limit
    }
    guard let admitted else { return }
    guard admitted else { return stop(.responseTooLarge(host: plan.host, limit: plan.limit)) }
    plan.progress?.add(data.count)
    if case .file(let file) = plan.destination {
      do {
        try file.write(contentsOf: data)
      } catch {
        stop(.transferFailed(host: plan.host, reason: "cannot write the download: \(error.localizedDescription)"))
      }
    } else {
      state.withLock { $0.body.append(data) }
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    // A writer thread still waiting for a chunk is let go (issue 53, L2).
    if case .chunks(let chunks)? = plan.upload { chunks.taskEnded() }
    let (caller, outcome) = state.withLock { state in
      let outcome: Result<TransferOutcome, Error>
      if let failure = state.stopped ?? error {
        outcome = .failure(failure)
      } else if let response = state.response {
        outcome = .success(TransferOutcome(response: response, body: state.body))
      } else {
        outcome = .failure(CNPinnedSessionError.invalidResponse(host: plan.host, reason: "no response"))
      }
      let caller = state.caller
      state.caller = nil
      state.task = nil
      state.body = Data()
      if caller == nil { state.ended = outcome }
      return (caller, outcome)
    }
    caller?.resume(with: outcome)
  }

  /// What the task's metrics say about the connection it used (reused or not, TLS and HTTP
  /// versions), before or after the task completes.
  func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
    facts.deliver(TransactionFacts(metrics))
  }

  /// The facts from the task's metrics, waiting a bounded time for them once the task has ended.
  func transactionFacts() async -> TransactionFacts? { await facts.facts() }

  /// Redirects come back to the caller, which judges and follows each hop itself.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  /// The body again, for a resend (a 401 or 407 answered, a stale connection retried):
  /// ``UploadSource/reopened()``, or the task fails with ``UploadSource/askedAgain``.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
  ) {
    let stream = plan.upload?.reopened()
    if stream == nil, plan.upload != nil { stop(UploadSource.askedAgain) }
    completionHandler(stream)
  }

  // MARK: - Inside

  /// Cancels the task for `reason`, which is then its outcome.
  private func stop(_ reason: CNPinnedSessionError) {
    let task = state.withLock { state -> URLSessionDataTask? in
      guard state.stopped == nil else { return nil }
      state.stopped = reason
      return state.task
    }
    task?.cancel()
  }
}
