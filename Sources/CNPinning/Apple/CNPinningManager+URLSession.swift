#if !CNPINNING_LINUX_BACKEND
import Foundation
import ObjectiveC
import Security

/// The seed's API on Apple platforms: thin glue that reads the challenge, lets
/// `CNPinningManager.decide` (shared, tested on Linux) decide, and maps the decision to a
/// disposition.
extension CNPinningManager {
  /// Reads the configuration from the app's Info.plist (`Bundle.main.infoDictionary`, so a
  /// command-line tool's embedded Info.plist works too), accepting enterprise policies when
  /// `enterprise` is given.
  public convenience init(enterprise: CNEnterpriseOptions? = nil) throws {
    self.init(document: try .mainBundle(Bundle.main.infoDictionary), enterprise: enterprise)
  }

  /// Handles a server-trust challenge for a pinned host, and every challenge other than server
  /// trust with default handling (NTLM, Negotiate, HTTP authentication, a server's optional
  /// request for a client certificate: what the system does without a delegate), and returns
  /// true; returns false, with the handler not called, for a host that is not pinned, which the
  /// app decides. An app that answers client-certificate or NTLM challenges itself uses
  /// `validateServerTrust(challenge:completionHandler:)`, which leaves those to it.
  ///
  /// The answer covers the connection the challenge is for: URLSession asks only when it opens
  /// a connection, so requests on connections it already has are not judged again; after the
  /// pins change (an enterprise policy applied, refreshed or signed out), `flush()` the session
  /// so that later requests open new connections, or use `CNPinnedSession`, which does so itself.
  ///
  /// URLSession needs this form's answer before the method returns, so the trust is evaluated
  /// synchronously, on the session's delegate queue (which it blocks meanwhile, and which may
  /// fetch missing intermediates or revocation data). Prefer the async `validate(challenge:)`
  /// from an async delegate method; it evaluates off the caller's threads.
  ///
  /// Pin failures and expiries go to `reporter` when one is given (the manager keeps no
  /// reporting state of its own); rejections are logged through `CNPinningLog` either way.
  public func validate(
    challenge: URLAuthenticationChallenge, reporter: CNPinningReporter? = nil,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) -> Bool {
    decision(for: challenge, reporter: reporter).handled(strict: false) { answer in
      let (disposition, credential) = Self.disposition(answer)
      completionHandler(disposition, credential)
    }
  }

  /// As `validate(challenge:completionHandler:)`, but handles server trust only: returns false,
  /// with the handler not called, for every other challenge (client certificates, NTLM,
  /// Negotiate, HTTP authentication), which the app answers itself, and for an unpinned host.
  public func validateServerTrust(
    challenge: URLAuthenticationChallenge, reporter: CNPinningReporter? = nil,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) -> Bool {
    decision(for: challenge, reporter: reporter).handled(strict: true) { answer in
      let (disposition, credential) = Self.disposition(answer)
      completionHandler(disposition, credential)
    }
  }

  /// `(.performDefaultHandling, nil)` when the pins match and for every challenge other than
  /// server trust, `(.cancelAuthenticationChallenge, nil)` when the pins do not match or trust
  /// fails; throws `CNPolicyError.notPinned` for an unpinned host (the seed's pattern catches
  /// just that). The trust is evaluated with `SecTrustEvaluateAsyncWithError`, off the caller's
  /// threads. Pin failures and expiries go to `reporter` when one is given.
  public func validate(challenge: URLAuthenticationChallenge, reporter: CNPinningReporter? = nil) async throws -> (
    URLSession.AuthChallengeDisposition, URLCredential?
  ) {
    Self.disposition(try await evaluatedDecision(for: challenge, reporter: reporter).seedAnswer())
  }

  /// As `validate(challenge:)`, but throws `CNPolicyError.notServerTrust` for every challenge
  /// other than server trust, which the app answers itself.
  public func validateServerTrust(challenge: URLAuthenticationChallenge, reporter: CNPinningReporter? = nil) async throws
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    Self.disposition(try await evaluatedDecision(for: challenge, reporter: reporter).serverTrustAnswer())
  }

  /// Judges a server trust handed over without a challenge, as Alamofire's `ServerTrustEvaluating`
  /// hands it: `trust` is evaluated for `host` (its SSL policy kept; one for `host` set when it
  /// has none), then the chain it built by the host's pins, reported to `reporter` and logged as
  /// the challenge forms do. Returns ``CNPinningResult/accepted(_:)`` or
  /// ``CNPinningResult/reportOnly(_:)`` to go on, and ``CNPinningResult/notPinned`` for a host
  /// the configuration does not pin (its trust not evaluated: the caller decides); throws
  /// ``CNServerTrustRefusal`` when the trust or the pins refuse it. Evaluates on the calling thread.
  public func validate(serverTrust trust: SecTrust, host: String, port: Int = 443, reporter: CNPinningReporter? = nil)
    throws(CNServerTrustRefusal) -> CNPinningResult
  {
    try decideSynchronously(
      authenticationMethod: Self.serverTrustAuthenticationMethod, host: host, port: port, reporter: reporter,
      serverTrust: trust
    ) { CNSecTrust.evaluate($0, host: host) }
    .serverTrustResult(host: host)
  }

  /// The shared decision with the trust evaluated off the caller's threads.
  private func evaluatedDecision(for challenge: URLAuthenticationChallenge, reporter: CNPinningReporter?) async
    -> CNChallengeDecision
  {
    let space = challenge.protectionSpace
    return await decide(
      authenticationMethod: space.authenticationMethod, host: space.host, port: space.port, reporter: reporter,
      serverTrust: space.serverTrust
    ) { await CNSecTrust.evaluate($0, host: space.host) }
  }

  private static func disposition(_ answer: CNSeedAnswer) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
    switch answer {
    case .performDefaultHandling: (.performDefaultHandling, nil)
    case .cancel: (.cancelAuthenticationChallenge, nil)
    }
  }

  /// The shared decision, the challenge's trust evaluated on this thread (the completion-handler
  /// form must answer synchronously whether it handled it).
  func decision(for challenge: URLAuthenticationChallenge, reporter: CNPinningReporter?) -> CNChallengeDecision {
    let space = challenge.protectionSpace
    return decideSynchronously(
      authenticationMethod: space.authenticationMethod, host: space.host, port: space.port, reporter: reporter,
      serverTrust: space.serverTrust
    ) { CNSecTrust.evaluate($0, host: space.host) }
  }
}

nonisolated(unsafe) private let managerKey = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
nonisolated(unsafe) private let revisionKey = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

extension URLSession {
  /// The pinning manager a delegate uses for this session (an associated object, set and read
  /// atomically from any thread). It pins nothing by itself: the session's delegate must call
  /// `validate(challenge:)`; set on a session without a delegate, it says so in the log.
  public var cnPinningManager: CNPinningManager? {
    get { objc_getAssociatedObject(self, managerKey) as? CNPinningManager }
    set {
      objc_setAssociatedObject(self, managerKey, newValue, .OBJC_ASSOCIATION_RETAIN)
      // Connections from here on are accepted under the pins in force now.
      revisionTracker.pinning(with: newValue, hasDelegate: delegate != nil)
    }
  }

  /// Makes later requests open new TCP connections, which URLSession challenges (unless one resumes
  /// an earlier TLS session, which Apple does not document either way) and so the pins in
  /// force judge, when the pins of `cnPinningManager` changed since this session last asked
  /// (`CNPinsRevision`). Call it before each request of a session pinned with
  /// `validate(challenge:)`; it costs a comparison when nothing changed, and a `flush()` (which
  /// Apple documents as making future requests use a new TCP connection) when something did.
  /// Every caller returns only once that flush is done, also one that arrives while it runs.
  /// Requests already on an old connection finish there. (On Linux, `URLSession.cnPinned` judges
  /// every request, and this returns at once.)
  public func cnStartAfreshIfPinsChanged() async {
    await revisionTracker.startAfresh(with: cnPinningManager) { [self] in
      await withCheckedContinuation { (flushed: CheckedContinuation<Void, Never>) in flush { flushed.resume() } }
    }
  }

  private var revisionTracker: PinsRevisionTracker {
    PinsRevisionTracker.kept(
      read: { objc_getAssociatedObject(self, revisionKey) as? PinsRevisionTracker },
      attach: { objc_setAssociatedObject(self, revisionKey, $0, .OBJC_ASSOCIATION_RETAIN) })
  }
}
#endif
