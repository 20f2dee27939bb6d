#if !CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSessionCore
import Foundation
import Security

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
    settings.tlsMinimumSupportedProtocolVersion = URLSessionTransport.protocolVersion(
      configuration.transportSecurity.minimumTLSVersion)
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
    let answer = await challenges.answer(challenge, task: nil)
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
