import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CNPinnedSessionConfiguration {
  /// Why URLSession (the transport on Apple platforms) cannot honour this configuration, or nil.
  /// A setting it would silently ignore is refused when the session is made rather than
  /// bypassed. Platform-neutral, tested on Linux.
  var settingURLSessionCannotHonour: String? {
    switch proxy {
    case .http, .https:
      // An explicit proxy would need platform-specific connectionProxyDictionary keys.
      return
        "an explicit proxy needs the Linux transport; on Apple platforms use .environment (the system's proxy settings) or .direct"
    case .environment where noProxy != nil:
      return "noProxy needs the Linux transport; on Apple platforms the system's proxy settings say which hosts bypass it"
    case .direct, .environment:
      break
    }
    if !resolve.isEmpty {
      return "resolve (fixed addresses for host names) needs the Linux transport; URLSession resolves names itself"
    }
    return nil
  }
}

extension CNPinnedSessionConfiguration {
  /// Why `URLSession.cnPinned` cannot take this configuration on Apple platforms, or nil: what the
  /// transport refuses, and credential headers in ``httpAdditionalHeaders``, which URLSession adds
  /// to every request it sends, redirects to other origins included.
  var settingAppURLSessionCannotHonour: String? {
    if let reason = settingURLSessionCannotHonour { return reason }
    let credentials = CredentialHeaders(additional: credentialHeaders)
    guard let name = httpAdditionalHeaders.keys.sorted().first(where: credentials.contains) else { return nil }
    return
      "httpAdditionalHeaders[\"\(name)\"] is a credential, which URLSession would also send to other origins a redirect leads to; on Apple platforms set it on each request, or use CNPinnedSession, which keeps it to the origin"
  }

  /// What an app's URLSession (`URLSession.cnPinned`) does with a redirect from `original` (the
  /// task's first request) to `next`: refuses one to plain http that the session would refuse
  /// (a pinned host, or the transport-security policy), stops unless ``followsRedirects``, and
  /// otherwise follows, without credential headers once the redirect leaves the first origin.
  func redirect(
    from original: URL?, to next: URLRequest, manager: CNPinningManager?, transportSecurity: IndexedTransportSecurity
  ) -> RedirectDecision {
    if let refusal = plainHTTPRefusal(for: next.url, manager: manager, transportSecurity: transportSecurity) {
      return .refuse(refusal)
    }
    guard followsRedirects else { return .stop }
    guard let original, let target = next.url, RedirectPolicy.origin(of: original) == RedirectPolicy.origin(of: target)
    else { return .follow(CredentialHeaders(additional: credentialHeaders).removed(from: next)) }
    return .follow(next)
  }

  /// Why a request to `url` must not go out, when it is plain `http://` and the session would
  /// refuse it (``TransportRules/refusal(forPlainHTTPTo:isPinned:)``); nil otherwise.
  func plainHTTPRefusal(for url: URL?, manager: CNPinningManager?, transportSecurity: IndexedTransportSecurity)
    -> CNPinnedSessionError?
  {
    guard let url, url.scheme?.lowercased() == "http" else { return nil }
    guard let target = try? RequestTarget(url) else { return .invalidURL(url.absoluteString) }
    let isPinned = manager?.configuration(for: target.hostName) != nil
    return transportSecurity.rules(for: target.hostName).refusal(forPlainHTTPTo: target.host, isPinned: isPinned)
  }
}

/// What `URLSession.cnPinned` on Apple platforms does with a redirect.
enum RedirectDecision: Equatable {
  /// Follow it with this request.
  case follow(URLRequest)
  /// Stop, handing the redirect response to the app (`followsRedirects` is off).
  case stop
  /// Refuse it: the task is cancelled, as the session would refuse the request.
  case refuse(CNPinnedSessionError)
}

extension RedirectDecision {
  /// The request a redirect delegate gives URLSession: the one to follow, or nil to stop; a
  /// refusal also cancels the task (`cancel`), since nil alone hands the app the 3xx, and says so
  /// in the log.
  func request(cancelling cancel: () -> Void) -> URLRequest? {
    switch self {
    case .follow(let next): return next
    case .stop: return nil
    case .refuse(let refusal):
      CNPinningLog.warn("URLSession.cnPinned refused a redirect: \(refusal)")
      cancel()
      return nil
    }
  }
}

extension CNPinnedSessionConfiguration {
  /// Cancels (`cancel`) a task to plain `http://` the session would refuse
  /// (`plainHTTPRefusal`), saying so in the log; other tasks go on.
  func refusePlainHTTP(
    to url: URL?, manager: CNPinningManager?, transportSecurity: IndexedTransportSecurity, cancel: () -> Void
  ) {
    guard let refusal = plainHTTPRefusal(for: url, manager: manager, transportSecurity: transportSecurity) else { return }
    CNPinningLog.warn("URLSession.cnPinned cancelled a task: \(refusal)")
    cancel()
  }
}

extension CNTrust {
  /// What to add to a TLS failure on Apple platforms under custom anchors: App Transport
  /// Security evaluates the certificate against the system's roots before the session's anchors
  /// are consulted, and refuses a private CA unless the Info.plist makes an exception for the
  /// host. nil under the system's trust.
  func appTransportSecurityHint(host: String) -> String? {
    guard self != .system else { return nil }
    return
      "with custom anchors, App Transport Security must also allow \(host): add NSAppTransportSecurity > NSExceptionDomains > \(host) > NSExceptionAllowsInsecureHTTPLoads = YES to the Info.plist (the session still requires the custom anchors and the pins)"
  }
}

extension CNPinnedSessionConfiguration {
  /// The most body bytes a hop takes: the response-body limit when the body is held in memory,
  /// the download limit when it goes to a file or a stream. One rule for both transports.
  func bodyLimit(for destination: BodyDestination) -> Int {
    destination.holdsBody ? maximumResponseBodySize : maximumDownloadSize
  }

  /// How long a request may take to connect or stay silent once sent: its own timeout or the
  /// configuration's, whichever is tighter (nil: no limit). One rule for both transports.
  func requestTimeout(for request: SessionRequest) -> BoundedInterval? {
    .tighter(request.timeout, BoundedInterval(timeoutIntervalForRequest))
  }

  /// What both of the Apple platforms' URLSessions start from: ephemeral, no cache, this
  /// configuration's timeouts (bounded: a year for none) and connections per host; `.direct` is an empty proxy dictionary,
  /// `.environment` the system's proxy settings. Each adds its own cookies and headers.
  func urlSessionSettings() -> URLSessionConfiguration {
    let settings = URLSessionConfiguration.ephemeral
    settings.urlCache = nil
    settings.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
    settings.timeoutIntervalForRequest = BoundedInterval.foundationSeconds(BoundedInterval(timeoutIntervalForRequest))
    settings.timeoutIntervalForResource = BoundedInterval.foundationSeconds(BoundedInterval(timeoutIntervalForResource))
    settings.httpMaximumConnectionsPerHost = httpMaximumConnectionsPerHost
    if proxy == .direct { settings.connectionProxyDictionary = [:] }
    return settings
  }

  /// What the transport's URLSessions start from: ``urlSessionSettings()`` without cookies (the
  /// session's business, hop by hop: ``Cookies``) and without additional headers (added to each
  /// request, so that credentials stay behind when a redirect leaves the origin).
  func transportURLSessionSettings() -> URLSessionConfiguration {
    let settings = urlSessionSettings()
    settings.httpCookieStorage = nil
    settings.httpShouldSetCookies = false
    return settings
  }

  /// The TLS floor as URLSession takes it (`tls_protocol_version_t`'s raw value). Below TLS 1.2
  /// it is said, since App Transport Security refuses such connections unless the app's
  /// Info.plist makes an exception.
  var urlSessionMinimumTLSVersion: UInt16 {
    let version = transportSecurity.minimumTLSVersion
    if version < .tls12 {
      CNPinningLog.warn(
        "minimumTLSVersion \(version): App Transport Security refuses TLS below 1.2 unless the Info.plist makes an exception (NSExceptionMinimumTLSVersion)"
      )
    }
    return UInt16(version.rawValue)
  }
}

extension CNPinnedSessionConfiguration {
  /// Throws `unsupportedRequest` with `settingURLSessionCannotHonour`, if any.
  func requireURLSessionCanHonour() throws(CNPinnedSessionError) {
    if let unsupported = settingURLSessionCannotHonour { throw .unsupportedRequest(unsupported) }
  }

  /// Throws `unsupportedRequest` with `settingAppURLSessionCannotHonour`, if any.
  func requireAppURLSessionCanHonour() throws(CNPinnedSessionError) {
    if let unsupported = settingAppURLSessionCannotHonour { throw .unsupportedRequest(unsupported) }
  }
}
