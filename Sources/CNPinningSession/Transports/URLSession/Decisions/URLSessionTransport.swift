@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CNPinnedSession's transport on Apple platforms: an ephemeral URLSession (no cache) whose
/// per-task delegates answer server-trust challenges with ``PinningChallenges``, each task judged on
/// the connection it used (``ConnectionVerdicts``). Redirects come back to the session's own loop,
/// so each hop is judged by its own host. URLSession does not judge a reused connection again, so
/// a new one is made whenever the pins in force may have changed: another manager, or a newer
/// `PolicyGeneration` of the same one (enterprise policy changes, pin expiry). `SessionRotation`
/// makes the swap, and retires a replaced URLSession only after its last task was made and
/// finished.
///
/// Every branch is here, platform-neutral: the Apple-only extension gives it the URLSession and
/// the delegates with the platform's challenge method (`URLSessionTransport(configuration:)`),
/// and Linux tests give it swift-corelibs-foundation's URLSession and the shared delegates.
final class URLSessionTransport: HopTransport {
  typealias Sessions = SessionRotation<CNPinningManager, PolicyGeneration, PinnedURLSession>
  typealias Respond = @Sendable (Result<HTTPURLResponse, CNPinnedSessionError>, Int) async -> Bool
  typealias Translate = @Sendable (Error) -> CNPinnedSessionError
  typealias VerdictCheck =
    @Sendable (PinnedURLSession, Int, TransactionFacts?, Bool) async throws(CNPinnedSessionError)
    -> Void

  /// What a platform makes for each task: the delegates (with its challenge method) and the
  /// stream a chunk sequence is written into.
  struct Delegates: Sendable {
    let task: @Sendable (PinningChallenges, TaskBodyDelegate.Plan) -> TaskBodyDelegate
    let stream:
      @Sendable (
        _ challenges: PinningChallenges, _ upload: UploadSource?, _ channel: ResponseBodyChannel, _ limit: Int,
        _ progress: CNTransferProgress?, _ translate: @escaping Translate, _ respond: @escaping Respond
      ) -> StreamBodyDelegate
    let chunkStream: @Sendable (ChunkedUpload, String) -> InputStream?
  }

  private let configuration: CNPinnedSessionConfiguration
  private let sessions: Sessions
  private let delegates: Delegates

  /// `makeSession`: a URLSession from `configuration.transportURLSessionSettings()`, with a
  /// ``RedirectRefusal`` as its delegate.
  init(
    configuration: CNPinnedSessionConfiguration, makeSession: @escaping @Sendable () -> URLSession, delegates: Delegates
  ) throws(CNPinnedSessionError) {
    try configuration.requireURLSessionCanHonour()
    self.configuration = configuration
    self.delegates = delegates
    sessions = SessionRotation(
      make: { PinnedURLSession(makeSession()) }, retire: { $0.session.finishTasksAndInvalidate() },
      cancel: { $0.session.invalidateAndCancel() })
  }

  /// URLSession's own threads: none to name.
  var threadName: String { "" }
  var borrowedTransfers: Int { 0 }
  /// URLSession's delegate queue is its own: tasks that prefer the session run where others do.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  var executor: any TaskExecutor { globalConcurrentExecutor }

  func invalidate() { sessions.close() }

  /// URLSessions made and retired so far, for tests.
  var sessionCounts: (made: Int, ended: Int) { sessions.sessionCounts }

  /// Runs one hop through URLSession: App Transport Security applies the transport-security
  /// rules; there is no handshake-only probe. Every challenge answered is reported, whatever
  /// the hop's outcome.
  nonisolated(nonsending) func exchange(_ hop: Hop) async -> HopReport {
    let judgements = JudgementLog()
    let outcome: Result<TransferOutcome, CNPinnedSessionError>
    do throws(CNPinnedSessionError) {
      outcome = .success(try await load(hop, judgements: judgements))
    } catch {
      outcome = .failure(error)
    }
    return HopReport(outcome: outcome, judgements: judgements.all, networkTime: nil)
  }

  private func load(_ hop: Hop, judgements: JudgementLog) async throws(CNPinnedSessionError) -> TransferOutcome {
    let challenges = PinningChallenges(
      settings: TaskSettings(
        host: hop.target.host, manager: hop.manager, trust: configuration.trust,
        unpinnedHosts: configuration.unpinnedHosts, judgements: judgements))
    let request = try URLSessionHop.request(for: hop, chunkStream: delegates.chunkStream)
    let translate = translation(for: challenges, upload: hop.upload)
    let check = verdictCheck(for: hop, judgements: judgements)
    if case .channel(let channel) = hop.destination {
      let response = try await stream(
        request, hop: hop, challenges: challenges, judgements: judgements, check: check, translate: translate,
        into: channel)
      return TransferOutcome(response: response, body: Data())
    }
    // Memory and downloads: a data task whose delegate counts the limit as bytes arrive and
    // writes a download to its file as it comes.
    let delegate = delegates.task(
      challenges,
      .init(
        host: hop.target.host, destination: hop.destination, limit: configuration.bodyLimit(for: hop.destination),
        upload: hop.upload, progress: hop.progress))
    return try await lease(for: hop) { pinned throws(CNPinnedSessionError) in
      challenges.attach(pinned.verdicts)
      let (outcome, task) = await delegate.run(request, in: pinned.session)
      // Judged whatever the outcome: an opener that failed still binds its verdict.
      try await check(pinned, task, await delegate.transactionFacts(), true)
      return try outcome.get(translate)
    }
  }

  /// Judges a hop's task on the connection it used (``ConnectionVerdicts``): throws when
  /// URLSession sent it over a connection nobody judged, after taking that URLSession out of
  /// service (``SessionRotation/retire``), so that the next request goes through a new URLSession
  /// with caches of its own. `final` false: a stream's response, whose metrics come at its end.
  private func verdictCheck(for hop: Hop, judgements: JudgementLog) -> VerdictCheck {
    let (host, port, manager, unpinnedHosts, sessions) = (
      hop.target.host, hop.target.port, hop.manager, configuration.unpinnedHosts, sessions
    )
    let mustBeJudged = Judgement.mustBeJudged(
      host: host, manager: manager, trust: configuration.trust, unpinnedHosts: unpinnedHosts)
    let requestTimeout = configuration.requestTimeout(for: hop.request)
    return { pinned, task, facts, final throws(CNPinnedSessionError) in
      let completion = await pinned.verdicts.judge(
        task: task, host: host, port: port, manager: manager, unpinnedHosts: unpinnedHosts, facts: facts,
        mustBeJudged: mustBeJudged, final: final, requestTimeout: requestTimeout)
      judgements.replace(with: completion.judgements)
      try completion.settle { sessions.retire(pinned) }
    }
  }

  /// A body read as it arrives: a data task whose delegate hands each chunk to `channel` as it
  /// comes, suspending the task while the reader has a full channel (``StreamBodyDelegate``,
  /// ``ChunkFeed``). Returns with the response; the body follows through `channel`, under the lease
  /// of the URLSession, until it ends. The response is judged on what is known when it comes
  /// (its metrics come at the end) and, once accepted, the task again by its own connection at its
  /// end, a refusal then emitted and reported; a response refused was judged, emitted and
  /// reported once, with the hop (review N5: it was judged and emitted again at the end).
  private func stream(
    _ request: URLRequest, hop: Hop, challenges: PinningChallenges, judgements: JudgementLog, check: @escaping VerdictCheck,
    translate: @escaping Translate, into channel: ResponseBodyChannel
  ) async throws(CNPinnedSessionError) -> HTTPURLResponse {
    let head = ResponseHeadHandOff<HTTPURLResponse>()
    let refusedAtHead = Locked(false)
    let (delegates, limit) = (delegates, configuration.maximumDownloadSize)
    let task = Task {
      do throws(CNPinnedSessionError) {
        try await lease(for: hop) { pinned throws(CNPinnedSessionError) in
          challenges.attach(pinned.verdicts)
          let delegate = delegates.stream(challenges, hop.upload, channel, limit, hop.progress, translate) {
            response, task in
            do throws(CNPinnedSessionError) {
              let http = try response.get()
              do throws(CNPinnedSessionError) {
                try await check(pinned, task, nil, false)
              } catch {
                refusedAtHead.withLock { $0 = true }
                throw error
              }
              head.deliver(.success(http))
              return true
            } catch {
              head.deliver(.failure(error))
              return false
            }
          }
          let (failure, task) = await delegate.run(request, in: pinned.session)
          guard !refusedAtHead.withLock({ $0 }) else { return channel.finish(failure) }
          do throws(CNPinnedSessionError) {
            try await check(pinned, task, await delegate.transactionFacts(), true)
            channel.finish(failure)
          } catch {
            hop.emit(judgements.all)
            channel.finish(error)
          }
        }
      } catch {
        head.deliver(.failure(error))
        channel.finish(error)
      }
    }
    return try await head.response(cancelling: task)
  }

  /// Turns a failed task's error into the session's: a failed request body's first (its task
  /// was cancelled for it), then the delegate's rejection.
  private func translation(for challenges: PinningChallenges, upload: UploadSource?) -> Translate {
    let (host, timeout, sessions, trust) = (
      challenges.settings.host, configuration.timeoutIntervalForRequest, sessions, configuration.trust
    )
    return { error in
      URLSessionHop.failure(
        error, upload: upload, rejection: challenges.rejection, sessionClosed: sessions.isClosed, host: host,
        timeout: timeout, trust: trust)
    }
  }

  /// Runs `work` in the URLSession for the pins in force, leased until `work` returns.
  private func lease<Result: Sendable>(
    for hop: Hop, _ work: @escaping @Sendable (PinnedURLSession) async throws(CNPinnedSessionError) -> Result
  ) async throws(CNPinnedSessionError) -> Result {
    do {
      return try await sessions.withSession(owner: hop.manager, generation: hop.manager?.policyGeneration()) {
        try await work($0)
      }
    } catch {
      throw URLSessionHop.leaseFailure(error, sessionClosed: sessions.isClosed, host: hop.target.host, upload: hop.upload)
    }
  }
}

/// A URLSession of the transport, with the verdicts bound to its connections, for the requests
/// URLSession sends over them without asking again.
final class PinnedURLSession: Sendable {
  let session: URLSession
  let verdicts = ConnectionVerdicts()

  init(_ session: URLSession) { self.session = session }
}

/// Returns 3xx responses to the caller instead of following them. The session's delegate, so it
/// must never have a session-level challenge method: URLSession would send server trust there
/// instead of to the task's delegate (`make apple-check` fails if it gets one).
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest? { nil }
}
