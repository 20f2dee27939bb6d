#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

extension URLSession {
  /// `cnPinned(manager:configuration:)` on Apple platforms: an ephemeral URLSession (no cache) whose
  /// session delegate pins, with `cnPinningManager` set so that `cnStartAfreshIfPinsChanged()` works.
  static func applePinned(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError)
    -> URLSession
  {
    try configuration.requireAppURLSessionCanHonour()
    let settings = configuration.urlSessionSettings()
    settings.httpAdditionalHeaders = configuration.httpAdditionalHeaders
    settings.httpCookieStorage = configuration.httpCookieStorage
    settings.tlsMinimumSupportedProtocolVersion = URLSessionTransport.protocolVersion(configuration)
    let delegate = try PinningSessionDelegate(manager: manager, configuration: configuration)
    let session = URLSession(configuration: settings, delegate: delegate, delegateQueue: nil)
    session.cnPinningManager = manager
    return session
  }
}

/// The session delegate of `URLSession.cnPinned` on Apple platforms: server-trust challenges get
/// the shared decision, with each pin failure reported and, with a `reportURI`, uploaded (the
/// same effects as `CNPinnedSession`'s); every other challenge default handling; a task to plain
/// `http://` that the session would refuse (a pinned host, the transport-security policy) is
/// cancelled when it is created, and so is a redirect there; other redirects follow the
/// configuration's rule (credentials kept to the first request's origin).
///
/// What it judges is each connection URLSession opens (the server-trust challenge comes with
/// it); requests on a connection already open are not judged again, and a per-task delegate that
/// implements the task-level challenge method may take server trust for its task instead of this
/// one (which of the two URLSession asks is device check 14): `CNPinnedSession` judges every
/// request.
final class PinningSessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  private let manager: CNPinningManager?
  private let configuration: CNPinnedSessionConfiguration
  private let transportSecurity: IndexedTransportSecurity
  private let effects: ConnectionEffects
  private var trust: CNTrust { configuration.trust }
  private var unpinnedHosts: CNUnpinnedHostPolicy { configuration.unpinnedHosts }

  init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError) {
    self.manager = manager
    self.configuration = configuration
    transportSecurity = try configuration.transportSecurity.indexed()
    effects = ConnectionEffects(configuration: configuration, manager: manager, makeTransport: CNPinnedSession.platformTransport)
  }

  /// A task to plain `http://` the session would refuse never starts.
  func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
    configuration.refusePlainHTTP(
      to: task.originalRequest?.url, manager: manager, transportSecurity: transportSecurity, cancel: task.cancel)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest? {
    configuration.redirect(
      from: task.originalRequest?.url, to: request, manager: manager, transportSecurity: transportSecurity
    ).request(cancelling: task.cancel)
  }

  func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async -> (
    URLSession.AuthChallengeDisposition, URLCredential?
  ) {
    let space = challenge.protectionSpace
    let judgements = JudgementLog()
    let challenges = PinningChallenges(
      settings: TaskSettings(
        host: space.host, manager: manager, trust: trust, unpinnedHosts: unpinnedHosts, judgements: judgements))
    let answer = await challenges.answer(challenge, task: nil)
    // Reported (and uploaded) here: there is no session after the request to do it.
    effects.emit(judgements.all, challengeHost: space.host, port: space.port, manager: manager)
    return answer
  }
}
#endif
