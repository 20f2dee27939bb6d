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
    if let unsupported = configuration.settingURLSessionCannotHonour { throw .unsupportedRequest(unsupported) }
    self.configuration = configuration
    sessions = SessionRotation(
      make: { PinnedURLSession(Self.makeSession(configuration)) }, retire: { $0.session.finishTasksAndInvalidate() },
      cancel: { $0.session.invalidateAndCancel() })
  }

  /// URLSession's own threads: none to name.
  var threadName: String { "" }
  var borrowedTransfers: Int { 0 }

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
    guard !hop.connectOnly else { throw .unsupportedRequest("probe (a handshake without a request) needs the Linux transport") }
    let settings = TaskSettings(
      host: hop.target.host, manager: hop.manager, trust: configuration.trust, unpinnedHosts: configuration.unpinnedHosts,
      judgements: judgements)
    // The configuration's headers are added here, per hop, so that withheld credentials stay out.
    // URLSession answers proxies itself: a Proxy-Authorization the app set never reaches an origin.
    var merged = RequestHeaders.adding(
      configuration.httpAdditionalHeaders, to: hop.request, withheld: hop.withheld, forOrigin: true)
    // The URLSession underneath keeps no cookies: the hop's come from `cookies`, as on Linux.
    if let cookie = Cookies.header(for: merged, from: hop.cookies) { merged.setValue(cookie, forHTTPHeaderField: "Cookie") }
    // A streamed body is URLSession's to read.
    switch hop.upload {
    case .file(let file):
      guard let stream = InputStream(url: file),
        let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
      else { throw .invalidArgument("cannot read the upload file \(file.path)") }
      merged.httpBodyStream = stream
      merged.setValue(String(size), forHTTPHeaderField: "Content-Length")
    case .stream(let body):
      merged.httpBodyStream = body.stream
    case nil:
      break
    }
    let challenges = PinningChallenges(settings: settings)
    if case .channel(let channel) = hop.destination {
      let response = try await stream(
        merged, hop: hop, challenges: challenges, judgements: judgements, into: channel, progress: hop.progress)
      return TransferOutcome(response: response, body: Data())
    }
    // Memory and downloads: a data task whose delegate counts the limit as bytes arrive and
    // writes a download to its file as it comes.
    let limit = hop.destination.holdsBody ? configuration.maximumResponseBodySize : configuration.maximumDownloadSize
    let delegate = PinningTaskDelegate(
      challenges: challenges,
      plan: .init(
        host: settings.host, destination: hop.destination, limit: limit, upload: hop.upload, progress: hop.progress))
    let translate = translation(for: challenges)
    let (request, check) = (merged, verdictCheck(for: hop, judgements: judgements))
    return try await withSession(for: settings.manager, host: settings.host) { pinned throws(CNPinnedSessionError) in
      let outcome = try await delegate.run(request, in: pinned.session, translate: translate)
      try check(pinned, delegate.transactionFacts)
      return outcome
    }
  }

  /// Completes a hop's judgements once its task has answered (`DelegateHopVerdict`, shared):
  /// throws when URLSession used a connection it never asked the pins about, and otherwise
  /// remembers the hop's accepted new connection for the requests that will reuse it.
  private func verdictCheck(for hop: Hop, judgements: JudgementLog)
    -> @Sendable (PinnedURLSession, TransactionFacts?) throws(CNPinnedSessionError) -> Void
  {
    let key = "\(hop.target.host):\(hop.target.port)"
    let mustBeJudged =
      hop.manager?.configuration(for: hop.target.hostName) != nil || configuration.trust != .system
      || configuration.unpinnedHosts == .deny
    let host = hop.target.host
    return { pinned, facts throws(CNPinnedSessionError) in
      let challenged = judgements.all
      let (completed, refusal) = DelegateHopVerdict.complete(
        host: host, challenged: challenged, remembered: pinned.judged.withLock { $0[key] }, facts: facts,
        mustBeJudged: mustBeJudged)
      judgements.replace(with: completed)
      if let refusal { throw refusal }
      if let accepted = challenged.last(where: { $0.rejection == nil }) { pinned.judged.withLock { $0[key] = accepted } }
    }
  }

  /// A body read as it arrives: `URLSession.bytes(for:delegate:)`, whose sequence is pulled only
  /// while the channel has room (`ResponseBodyChannel.fill`). Returns with the response; the
  /// body follows through `channel`, under the lease of the URLSession, until it ends.
  private func stream(
    _ request: URLRequest, hop: Hop, challenges: PinningChallenges, judgements: JudgementLog,
    into channel: ResponseBodyChannel, progress: CNTransferProgress?
  ) async throws(CNPinnedSessionError) -> HTTPURLResponse {
    let head = ResponseHeadHandOff()
    let filler = Locked<Task<Void, Never>?>(nil)
    let delegate = PinningStreamDelegate(challenges: challenges)
    let translate = translation(for: challenges)
    let (host, limit, manager) = (challenges.settings.host, configuration.maximumDownloadSize, challenges.settings.manager)
    let check = verdictCheck(for: hop, judgements: judgements)
    let task = Task {
      do throws(CNPinnedSessionError) {
        try await withSession(for: manager, host: host) { pinned throws(CNPinnedSessionError) in
          let bytes: URLSession.AsyncBytes
          let response: URLResponse
          do {
            (bytes, response) = try await pinned.session.bytes(for: request, delegate: delegate)
          } catch {
            throw translate(error)
          }
          guard let http = response as? HTTPURLResponse else { throw .invalidResponse(host: host, reason: "not HTTP") }
          // The task's metrics come only when the body has ended: judged on what is known now.
          try check(pinned, nil)
          progress?.start(expected: http.expectedContentLength >= 0 ? Int(http.expectedContentLength) : nil)
          head.deliver(.success(http))
          await channel.fill(
            from: bytes, limit: limit, host: host, progress: progress,
            stopFilling: { filler.withLock { $0 }?.cancel() }, translate: translate)
        }
      } catch {
        head.deliver(.failure(error))
        channel.finish(error)
      }
    }
    filler.withLock { $0 = task }
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

  /// Turns a failed task's error into the session's: the delegate's rejection first.
  private func translation(for challenges: PinningChallenges) -> @Sendable (Error) -> CNPinnedSessionError {
    let (host, timeout, sessions, trust) = (
      challenges.settings.host, configuration.timeoutIntervalForRequest, sessions, configuration.trust
    )
    return { error in
      if let error = error as? CNPinnedSessionError { return error }
      if let rejection = challenges.rejection { return rejection }
      if sessions.isClosed { return .sessionInvalidated }
      return Self.map(error, host: host, timeout: timeout, trust: trust)
    }
  }

  /// Runs `work` in the URLSession for the pins in force, leased until `work` returns.
  private func withSession<Result: Sendable>(
    for manager: CNPinningManager?, host: String,
    _ work: @escaping @Sendable (PinnedURLSession) async throws(CNPinnedSessionError) -> Result
  ) async throws(CNPinnedSessionError) -> Result {
    do {
      return try await sessions.withSession(owner: manager, generation: manager?.policyGeneration()) { try await work($0) }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch is CancellationError {
      throw sessions.isClosed ? .sessionInvalidated : .cancelled
    } catch is SessionRotation<CNPinningManager, PolicyGeneration, PinnedURLSession>.Closed {
      throw .sessionInvalidated
    } catch {
      throw .transferFailed(host: host, reason: "\(error)")
    }
  }

  private static func makeSession(_ configuration: CNPinnedSessionConfiguration) -> URLSession {
    let settings = URLSessionConfiguration.ephemeral
    settings.urlCache = nil
    // Cookies are the pinned session's business, hop by hop (`Cookies`).
    settings.httpCookieStorage = nil
    settings.httpShouldSetCookies = false
    settings.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
    settings.timeoutIntervalForRequest = configuration.timeoutIntervalForRequest
    settings.timeoutIntervalForResource = configuration.timeoutIntervalForResource
    settings.httpMaximumConnectionsPerHost = configuration.httpMaximumConnectionsPerHost
    // The session adds httpAdditionalHeaders to each request itself (credentials stay behind
    // when a redirect leaves the origin), so the URLSession gets none.
    settings.tlsMinimumSupportedProtocolVersion = protocolVersion(configuration.minimumTLSVersion)
    // .environment keeps the system's proxy settings; .direct is an empty proxy dictionary.
    if configuration.proxy == .direct { settings.connectionProxyDictionary = [:] }
    return URLSession(configuration: settings, delegate: RedirectRefusal(), delegateQueue: nil)
  }

  /// The configured minimum as is; below TLS 1.2 it is said, since App Transport Security
  /// refuses such connections unless the app's Info.plist makes an exception.
  static func protocolVersion(_ version: CNTLSVersion) -> tls_protocol_version_t {
    switch version {
    case .tls10, .tls11:
      CNPinningLog.warn(
        "minimumTLSVersion \(version): App Transport Security refuses TLS below 1.2 unless the Info.plist makes an exception (NSExceptionMinimumTLSVersion)"
      )
      return version == .tls10 ? .TLSv10 : .TLSv11
    case .tls12: return .TLSv12
    case .tls13: return .TLSv13
    }
  }

  private static func map(_ error: Error, host: String, timeout: TimeInterval, trust: CNTrust) -> CNPinnedSessionError {
    guard let error = error as? URLError else { return .transferFailed(host: host, reason: "\(error)") }
    let hinted = [error.localizedDescription, trust.appTransportSecurityHint(host: host)].compactMap { $0 }.joined(
      separator: "; ")
    switch error.code {
    case .cancelled: return .cancelled
    case .timedOut: return .timedOut(host: host, seconds: timeout)
    case .cannotFindHost, .dnsLookupFailed: return .cannotResolveHost(host: host)
    case .cannotConnectToHost: return .cannotConnect(host: host, reason: error.localizedDescription)
    case .networkConnectionLost: return .connectionLost(host: host, reason: error.localizedDescription)
    case .secureConnectionFailed: return .tlsHandshakeFailed(host: host, reason: hinted)
    case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid:
      return .untrustedChain(host: host, reason: hinted)
    case .appTransportSecurityRequiresSecureConnection: return .transportSecurity(.insecureHTTP(host: host))
    default: return .transferFailed(host: host, reason: error.localizedDescription)
    }
  }
}

/// A URLSession of the transport, with what it has judged: the last accepted new connection per
/// host and port, for the requests URLSession sends over it without asking again.
final class PinnedURLSession: Sendable {
  let session: URLSession
  let judged = Locked<[String: Judgement]>([:])

  init(_ session: URLSession) { self.session = session }
}

/// What a task's delegate needs.
struct TaskSettings: Sendable {
  let host: String
  let manager: CNPinningManager?
  let trust: CNTrust
  let unpinnedHosts: CNUnpinnedHostPolicy
  /// Where the delegate records each challenge it answers (for observer events and reports).
  let judgements: JudgementLog
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

/// Judges a task's server-trust challenges with the shared decision, and remembers why it
/// refused one (the task then fails with URLSession's cancellation, which says nothing).
final class PinningChallenges: Sendable {
  let settings: TaskSettings
  private let recorded = Locked<CNPinnedSessionError?>(nil)

  init(settings: TaskSettings) { self.settings = settings }

  var rejection: CNPinnedSessionError? { recorded.withLock { $0 } }

  func answer(_ challenge: URLAuthenticationChallenge) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
    let space = challenge.protectionSpace
    guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
      return (.performDefaultHandling, nil)
    }
    // Evaluated once, off the caller's threads (it may fetch revocation data), and only when
    // something will use it: pinned hosts, and unpinned ones under custom anchors.
    let needsEvaluation = settings.manager?.configuration(for: space.host) != nil || settings.trust != .system
    let evaluation: CNTrustEvaluation? = needsEvaluation ? await evaluate(trust, host: space.host) : nil
    let (answer, judgement) = Judgement.challenge(
      host: space.host, manager: settings.manager, trust: settings.trust, unpinnedHosts: settings.unpinnedHosts,
      evaluation: evaluation)
    if let rejection = judgement.rejection { recorded.withLock { $0 = rejection } }
    settings.judgements.append(judgement)
    switch answer {
    case .performDefaultHandling: return (.performDefaultHandling, nil)
    case .useCredential: return (.useCredential, URLCredential(trust: trust))
    case .cancel: return (.cancelAuthenticationChallenge, nil)
    }
  }

  private func evaluate(_ trust: SecTrust, host: String) async -> CNTrustEvaluation {
    switch settings.trust {
    case .system: return await CNSecTrust.evaluate(trust, host: host)
    case .customAnchors(let anchors): return await CNSecTrust.evaluate(trust, host: host, anchors: anchors, anchorsOnly: true)
    case .systemAndCustomAnchors(let anchors):
      return await CNSecTrust.evaluate(trust, host: host, anchors: anchors, anchorsOnly: false)
    }
  }
}

/// A data task's delegate: its body as it arrives (`TaskBodyDelegate`, shared) and its
/// server-trust challenges.
final class PinningTaskDelegate: TaskBodyDelegate, @unchecked Sendable {
  private let challenges: PinningChallenges

  init(challenges: PinningChallenges, plan: Plan) {
    self.challenges = challenges
    super.init(plan: plan)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    await challenges.answer(challenge)
  }
}

/// The delegate of a `bytes(for:delegate:)` stream: its server-trust challenges, and redirects
/// returned to the session (which judges and follows each hop).
final class PinningStreamDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  private let challenges: PinningChallenges

  init(challenges: PinningChallenges) { self.challenges = challenges }

  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    await challenges.answer(challenge)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest? { nil }
}
/// A stream's response, handed once from the task that reads the stream to the hop waiting for it.
private final class ResponseHeadHandOff: Sendable {
  private let state = Locked<
    (result: Result<HTTPURLResponse, CNPinnedSessionError>?, waiter: CheckedContinuation<HTTPURLResponse, Error>?)
  >((nil, nil))

  /// Delivers the response (or why there is none); later deliveries are ignored.
  func deliver(_ result: Result<HTTPURLResponse, CNPinnedSessionError>) {
    let waiter = state.withLock { state -> CheckedContinuation<HTTPURLResponse, Error>? in
      guard state.result == nil else { return nil }
      state.result = result
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(with: result.mapError { $0 })
  }

  func response() async throws(CNPinnedSessionError) -> HTTPURLResponse {
    do {
      return try await withCheckedThrowingContinuation { continuation in
        let ready = state.withLock { state -> Result<HTTPURLResponse, CNPinnedSessionError>? in
          if state.result == nil { state.waiter = continuation }
          return state.result
        }
        if let ready { continuation.resume(with: ready.mapError { $0 }) }
      }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch {
      throw .cancelled
    }
  }
}
extension URLSession {
  /// `cnPinned(manager:configuration:)` on Apple platforms: an ephemeral URLSession (no cache) whose
  /// session delegate pins, with `cnPinningManager` set so that `cnStartAfreshIfPinsChanged()` works.
  static func applePinned(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError)
    -> URLSession
  {
    if let unsupported = configuration.settingAppURLSessionCannotHonour { throw .unsupportedRequest(unsupported) }
    let settings = URLSessionConfiguration.ephemeral
    settings.urlCache = nil
    settings.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
    settings.timeoutIntervalForRequest = configuration.timeoutIntervalForRequest
    settings.timeoutIntervalForResource = configuration.timeoutIntervalForResource
    settings.httpMaximumConnectionsPerHost = configuration.httpMaximumConnectionsPerHost
    settings.httpAdditionalHeaders = configuration.httpAdditionalHeaders
    settings.httpCookieStorage = configuration.httpCookieStorage
    if configuration.proxy == .direct { settings.connectionProxyDictionary = [:] }
    settings.tlsMinimumSupportedProtocolVersion = URLSessionTransport.protocolVersion(configuration.minimumTLSVersion)
    let delegate = PinningSessionDelegate(manager: manager, configuration: configuration)
    let session = URLSession(configuration: settings, delegate: delegate, delegateQueue: nil)
    session.cnPinningManager = manager
    return session
  }
}

/// The session delegate of `URLSession.cnPinned` on Apple platforms: server-trust challenges get
/// the shared decision (and the reports it makes), every other challenge default handling, and
/// redirects the configuration's rule (credentials kept to the first request's origin).
final class PinningSessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  private let manager: CNPinningManager?
  private let configuration: CNPinnedSessionConfiguration
  private let reporter: CNPinningReporter
  private var trust: CNTrust { configuration.trust }
  private var unpinnedHosts: CNUnpinnedHostPolicy { configuration.unpinnedHosts }

  init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration) {
    self.manager = manager
    self.configuration = configuration
    self.reporter = configuration.failureReporter ?? CNPinningReporter()
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest? {
    configuration.redirect(from: task.originalRequest?.url, to: request)
  }

  func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async -> (
    URLSession.AuthChallengeDisposition, URLCredential?
  ) {
    let space = challenge.protectionSpace
    let judgements = JudgementLog()
    let challenges = PinningChallenges(
      settings: TaskSettings(
        host: space.host, manager: manager, trust: trust, unpinnedHosts: unpinnedHosts, judgements: judgements))
    let answer = await challenges.answer(challenge)
    // Reported here: there is no session after the request to do it.
    for judgement in judgements.all {
      if let manager, let pinning = judgement.pinning {
        _ = reporter.report(pinning, host: space.host, port: space.port, chain: judgement.verifiedChain, pins: manager)
      }
    }
    return answer
  }
}
#endif
