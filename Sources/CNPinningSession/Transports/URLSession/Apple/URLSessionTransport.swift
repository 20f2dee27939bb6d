#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

/// CNPinnedSession's transport on Apple platforms: an ephemeral URLSession (no cache) whose
/// per-task delegate runs the shared `CNPinningManager.decide`. Redirects come back to the
/// session's own loop, so each hop is judged by its own host. URLSession does not judge a
/// reused connection again, so a new one is made whenever the pins in force may have changed:
/// another manager, or a newer `PolicyGeneration` of the same one (enterprise policy changes,
/// pin expiry). `SessionRotation` (shared, tested on Linux) makes the swap, and retires a
/// replaced URLSession only after its last task was made and finished.
final class URLSessionTransport: HopTransport {
  private let configuration: CNPinnedSessionConfiguration
  private let sessions: SessionRotation<CNPinningManager, PolicyGeneration, PinnedURLSession>

  init(configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError) {
    try configuration.requireURLSessionCanHonour()
    self.configuration = configuration
    sessions = SessionRotation(
      make: { PinnedURLSession(Self.makeSession(configuration)) }, retire: { $0.session.finishTasksAndInvalidate() },
      cancel: { $0.session.invalidateAndCancel() })
  }

  /// URLSession's own threads: none to name.
  var threadName: String { "" }
  var borrowedTransfers: Int { 0 }
  /// URLSession's delegate queue is its own: tasks that prefer the session run where others do.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  var executor: any TaskExecutor { globalConcurrentExecutor }

  func invalidate() { sessions.close() }

  /// Runs one hop through URLSession: App Transport Security applies the transport-security
  /// rules; there is no handshake-only probe. Every challenge answered is reported, whatever
  /// the hop's outcome.
  func exchange(_ hop: Hop) async -> HopReport {
    let judgements = JudgementLog()
    do throws(CNPinnedSessionError) {
      let outcome = try await load(hop, judgements: judgements)
      return HopReport(outcome: .success(outcome), judgements: judgements.all, networkTime: nil)
    } catch {
      return HopReport(outcome: .failure(error), judgements: judgements.all, networkTime: nil)
    }
  }

  private func load(_ hop: Hop, judgements: JudgementLog) async throws(CNPinnedSessionError) -> TransferOutcome {
    let settings = TaskSettings(
      host: hop.target.host, manager: hop.manager, trust: configuration.trust, unpinnedHosts: configuration.unpinnedHosts,
      judgements: judgements)
    let merged = try URLSessionHop.request(
      for: hop, additionalHeaders: configuration.httpAdditionalHeaders, chunkStream: ChunkStreamWriter.stream)
    let challenges = PinningChallenges(settings: settings)
    if case .channel(let channel) = hop.destination {
      let response = try await stream(
        merged, hop: hop, challenges: challenges, judgements: judgements, into: channel, progress: hop.progress)
      return TransferOutcome(response: response, body: Data())
    }
    // Memory and downloads: a data task whose delegate counts the limit as bytes arrive and
    // writes a download to its file as it comes.
    let limit = configuration.bodyLimit(for: hop.destination)
    let delegate = PinningTaskDelegate(
      challenges: challenges,
      plan: .init(
        host: settings.host, destination: hop.destination, limit: limit, upload: hop.upload, progress: hop.progress))
    let translate = translation(for: challenges, upload: hop.upload)
    let (request, check) = (merged, verdictCheck(for: hop, judgements: judgements))
    return try await withSession(for: settings.manager, host: settings.host) { pinned throws(CNPinnedSessionError) in
      challenges.attach(pinned.verdicts)
      let (outcome, task) = await delegate.run(request, in: pinned.session)
      // Judged whatever the outcome: an opener that failed still binds its verdict.
      try await check(pinned, task, await delegate.transactionFacts(), true)
      return try outcome.get(translate)
    }
  }

  /// Judges a hop's task on the connection it used (`ConnectionVerdicts`, shared): throws when
  /// URLSession sent it over a connection nobody judged, after taking that URLSession out of
  /// service (`SessionRotation.retire`), so that the next request goes through a new URLSession
  /// with caches of its own. `final` false: a stream's response, whose metrics come at its end.
  private func verdictCheck(for hop: Hop, judgements: JudgementLog)
    -> @Sendable (PinnedURLSession, Int, TransactionFacts?, Bool) async throws(CNPinnedSessionError) -> Void
  {
    let mustBeJudged =
      hop.manager?.configuration(for: hop.target.hostName) != nil || configuration.trust != .system
      || configuration.unpinnedHosts.refusal(host: hop.target.host) != nil
    let (host, port, manager, unpinnedHosts, sessions) = (
      hop.target.host, hop.target.port, hop.manager, configuration.unpinnedHosts, sessions
    )
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
  /// comes, suspending the task while the reader has a full channel (`PinningStreamDelegate`,
  /// `ChunkFeed`). Returns with the response; the body follows through `channel`, under the lease
  /// of the URLSession, until it ends.
  private func stream(
    _ request: URLRequest, hop: Hop, challenges: PinningChallenges, judgements: JudgementLog,
    into channel: ResponseBodyChannel, progress: CNTransferProgress?
  ) async throws(CNPinnedSessionError) -> HTTPURLResponse {
    let head = ResponseHeadHandOff<HTTPURLResponse>()
    let translate = translation(for: challenges, upload: hop.upload)
    let (host, manager) = (challenges.settings.host, challenges.settings.manager)
    let check = verdictCheck(for: hop, judgements: judgements)
    let task = Task {
      do throws(CNPinnedSessionError) {
        try await withSession(for: manager, host: host) { pinned throws(CNPinnedSessionError) in
          challenges.attach(pinned.verdicts)
          let delegate = PinningStreamDelegate(
            challenges: challenges, upload: hop.upload, channel: channel, limit: self.configuration.maximumDownloadSize,
            progress: progress,
            translate: translate
          ) { response, task in
            // The task's metrics come only when the body has ended: judged on what is known now,
            // and again at the end.
            do throws(CNPinnedSessionError) {
              let http = try response.get()
              try await check(pinned, task, nil, false)
              head.deliver(.success(http))
              return true
            } catch {
              head.deliver(.failure(error))
              return false
            }
          }
          let (failure, task) = await delegate.run(request, in: pinned.session)
          do throws(CNPinnedSessionError) {
            try await check(pinned, task, await delegate.transactionFacts(), true)
            channel.finish(failure)
          } catch {
            // Judged by its own connection only now: the refusal is emitted and reported here,
            // the response having gone out with the judgement made at its head.
            hop.emit(judgements.all)
            channel.finish(error)
          }
        }
      } catch {
        head.deliver(.failure(error))
        channel.finish(error)
      }
    }
    do {
      return try await withTaskCancellationHandler {
        try await head.response()
      } onCancel: {
        task.cancel()
      }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch {
      throw .cancelled
    }
  }

  /// Turns a failed task's error into the session's: a failed request body's first (its task
  /// was cancelled for it), then the delegate's rejection.
  private func translation(for challenges: PinningChallenges, upload: UploadSource?)
    -> @Sendable (Error) ->
    CNPinnedSessionError
  {
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
  private func withSession<Result: Sendable>(
    for manager: CNPinningManager?, host: String,
    _ work: @escaping @Sendable (PinnedURLSession) async throws(CNPinnedSessionError) -> Result
  ) async throws(CNPinnedSessionError) -> Result {
    do {
      return try await sessions.withSession(owner: manager, generation: manager?.policyGeneration()) { try await work($0) }
    } catch {
      throw URLSessionHop.leaseFailure(error, sessionClosed: sessions.isClosed, host: host)
    }
  }

  private static func makeSession(_ configuration: CNPinnedSessionConfiguration) -> URLSession {
    let settings = configuration.urlSessionSettings()
    // Cookies are the pinned session's business, hop by hop (`Cookies`).
    settings.httpCookieStorage = nil
    settings.httpShouldSetCookies = false
    // The session adds httpAdditionalHeaders to each request itself (credentials stay behind
    // when a redirect leaves the origin), so the URLSession gets none.
    settings.tlsMinimumSupportedProtocolVersion = protocolVersion(configuration)
    return URLSession(configuration: settings, delegate: RedirectRefusal(), delegateQueue: nil)
  }

  /// The configured minimum as is (`urlSessionMinimumTLSVersion`, shared).
  static func protocolVersion(_ configuration: CNPinnedSessionConfiguration) -> tls_protocol_version_t {
    tls_protocol_version_t(rawValue: configuration.urlSessionMinimumTLSVersion) ?? .TLSv12
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
/// instead of to the task's `PinningTaskDelegate` (`make apple-check` fails if it gets one).
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest? { nil }
}

#endif
