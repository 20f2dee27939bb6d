#if !os(Linux) || CNPINNING_APPLE_CHECK
import Foundation
import ObjectiveC
import Security

/// The seed's API on Apple platforms: thin glue that reads the challenge, lets
/// `CNPinningManager.decide` (shared, tested on Linux) decide, and maps the decision to a
/// disposition.
extension CNPinningManager {
  /// Reads the configuration from the app's Info.plist (`Bundle.main.infoDictionary`, so a
  /// command-line tool's embedded Info.plist works too).
  public convenience init() throws {
    self.init(document: try CNPinningDocument(infoDictionary: Bundle.main.infoDictionary ?? [:]), source: "Info.plist")
  }

  /// Reads the configuration from the app's Info.plist and accepts enterprise policies.
  public convenience init(authenticationHost: String, policySigningKey: CNPolicySigningKey, clockSkew: TimeInterval = 0)
    throws
  {
    try self.init(
      authenticationHost: authenticationHost, policySigningKey: policySigningKey,
      document: try CNPinningDocument(infoDictionary: Bundle.main.infoDictionary ?? [:]), clockSkew: clockSkew)
  }

  /// Handles a server-trust challenge for a pinned host and returns true; returns false, with
  /// the handler not called, for a host that is not pinned. Other challenges get default
  /// handling.
  public func validate(
    challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) -> Bool {
    switch decision(for: challenge) {
    case .notPinned:
      return false
    case .notServerTrust, .performDefaultHandling:
      completionHandler(.performDefaultHandling, nil)
    case .cancel:
      completionHandler(.cancelAuthenticationChallenge, nil)
    }
    return true
  }

  /// `(.performDefaultHandling, nil)` when the pins match, `(.cancelAuthenticationChallenge, nil)`
  /// when they do not or trust fails; throws `CNPinningError.notPinned` for an unpinned host.
  /// The trust is evaluated with `SecTrustEvaluateAsyncWithError`, off the caller's threads.
  public func validate(challenge: URLAuthenticationChallenge) async throws -> (
    URLSession.AuthChallengeDisposition, URLCredential?
  ) {
    let space = challenge.protectionSpace
    var evaluation: CNTrustEvaluation?
    if space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust,
      configuration(for: space.host) != nil
    {
      evaluation = await CNSecTrust.evaluate(trust, host: space.host)
    }
    switch decision(for: challenge, evaluation: { evaluation }) {
    case .notPinned: throw CNPinningError.notPinned
    case .notServerTrust, .performDefaultHandling: return (.performDefaultHandling, nil)
    case .cancel: return (.cancelAuthenticationChallenge, nil)
    }
  }

  /// The shared decision; `evaluation` defaults to evaluating the challenge's trust on this
  /// thread (the completion-handler form must answer synchronously whether it handled it).
  func decision(
    for challenge: URLAuthenticationChallenge, evaluation: (() -> CNTrustEvaluation?)? = nil
  ) -> CNChallengeDecision {
    let space = challenge.protectionSpace
    let decision = decide(authenticationMethod: space.authenticationMethod, host: space.host, port: space.port) {
      evaluation?() ?? space.serverTrust.map { CNSecTrust.evaluate($0, host: space.host) }
    }
    if case .cancel(let rejection) = decision { CNPinningLog.warn("\(space.host): \(rejection)") }
    return decision
  }
}

nonisolated(unsafe) private let managerKey = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

extension URLSession {
  /// The pinning manager a delegate uses for this session (an associated object).
  public var cnPinningManager: CNPinningManager? {
    get { objc_getAssociatedObject(self, managerKey) as? CNPinningManager }
    set { objc_setAssociatedObject(self, managerKey, newValue, .OBJC_ASSOCIATION_RETAIN_NONATOMIC) }
  }
}
#endif
