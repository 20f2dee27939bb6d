import CNPinning
import Foundation

extension CNPinnedSessionError.Kind {
  /// Whether the failure is a certificate or pin verdict (as opposed to the network or the caller).
  package var isTrustFailure: Bool {
    switch self {
    case .untrustedChain, .hostnameMismatch, .certificateExpired, .certificateNotYetValid, .pinMismatch,
      .hostNotPinned, .insecureConnectionToPinnedHost, .transportSecurity, .untrustedProxy, .connectionNotJudged:
      return true
    default:
      return false
    }
  }
}

extension CNPinnedSessionError: CustomStringConvertible {
  public var description: String {
    switch kind {
    case .invalidURL(let url): return "invalid URL \"\(url)\": an absolute http or https URL with a host is required"
    case .invalidHost(let host, let reason): return "\"\(host)\" is not a host name to connect to: \(reason)"
    case .invalidArgument(let why): return "invalid argument: \(why)"
    case .unsupportedRequest(let what): return "unsupported request: \(what)"
    case .untrustedChain(let host, let reason): return "\(host): the certificate chain is not trusted: \(reason)"
    case .hostnameMismatch(let host): return "\(host): the certificate is not valid for \(host)"
    case .certificateExpired(let host): return "\(host): a certificate in the chain has expired"
    case .certificateNotYetValid(let host): return "\(host): a certificate in the chain is not valid yet"
    case .pinMismatch(let failure): return failure.description
    case .hostNotPinned(let host): return "\(host) is not pinned and this session refuses unpinned hosts"
    case .transportSecurity(let violation): return violation.description
    case .insecureConnectionToPinnedHost(let host):
      return "\(host) is pinned, so it must be reached over https (pins cannot be checked on plain http)"
    case .tlsHandshakeFailed(let host, let reason): return "\(host): TLS handshake failed: \(reason)"
    case .connectionRefused(let host, let port): return "\(host):\(port): connection refused"
    case .cannotConnect(let host, let reason): return "\(host): cannot connect: \(reason)"
    case .cannotResolveHost(let host): return "\(host): the host name does not resolve"
    case .timedOut(let host, let seconds): return "\(host): timed out after \(seconds) s"
    case .connectionLost(let host, let reason): return "\(host): the connection was lost: \(reason)"
    case .invalidResponse(let host, let reason): return "\(host): invalid HTTP response: \(reason)"
    case .responseTooLarge(let host, let limit):
      return "\(host): the response body is larger than the limit of \(limit) bytes (after decoding)"
    case .tooManyRedirects(let count): return "stopped after \(count) redirects"
    case .cancelled: return "the request was cancelled"
    case .sessionInvalidated: return "the session was invalidated"
    case .proxyFailed(let proxy, let reason): return "proxy \(proxy): \(reason)"
    case .untrustedProxy(let proxy, let reason): return "proxy \(proxy): its certificate is not trusted: \(reason)"
    case .transferFailed(let host, let reason): return "\(host): transfer failed: \(reason)"
    case .setupFailed(let reason): return "the session cannot make requests: \(reason)"
    case .connectionNotJudged(let host, let reason):
      return "\(host): the request was sent over a connection the pins never judged (\(reason)); "
        + "nothing more of its response is delivered"
    }
  }
}

extension CNPinnedSessionError {
  /// Whether the failure is a certificate or pin verdict (as opposed to the network or the caller).
  public var isTrustFailure: Bool { kind.isTrustFailure }

  /// The host the request was for, when the failure concerns one (the pinned host of a pin
  /// mismatch included).
  public var host: String? {
    switch kind {
    case .invalidHost(let host, _), .untrustedChain(let host, _), .hostnameMismatch(let host),
      .certificateExpired(let host), .certificateNotYetValid(let host), .hostNotPinned(let host),
      .insecureConnectionToPinnedHost(let host), .tlsHandshakeFailed(let host, _), .connectionRefused(let host, _),
      .cannotConnect(let host, _), .cannotResolveHost(let host), .timedOut(let host, _), .connectionLost(let host, _),
      .invalidResponse(let host, _), .responseTooLarge(let host, _), .transferFailed(let host, _),
      .connectionNotJudged(let host, _):
      host
    case .pinMismatch(let failure): failure.host
    case .transportSecurity(let violation): violation.host
    default: nil
    }
  }

  /// What went wrong in words, when the code alone does not say: OpenSSL's or libcurl's reason,
  /// the malformed URL or argument, the unsupported feature.
  public var reason: String? {
    switch kind {
    case .invalidURL(let text), .invalidArgument(let text), .unsupportedRequest(let text): text
    case .invalidHost(_, let reason), .untrustedChain(_, let reason), .tlsHandshakeFailed(_, let reason),
      .cannotConnect(_, let reason), .connectionLost(_, let reason), .invalidResponse(_, let reason),
      .proxyFailed(_, let reason), .untrustedProxy(_, let reason), .transferFailed(_, let reason),
      .setupFailed(let reason), .connectionNotJudged(_, let reason):
      reason
    default: nil
    }
  }

  /// Why the pins refused the verified chain, certificate by certificate (`pinMismatch`).
  public var pinningFailure: CNPinningFailure? {
    if case .pinMismatch(let failure) = kind { failure } else { nil }
  }

  /// The rule of the transport-security policy the connection broke (`transportSecurity`).
  public var transportSecurityViolation: CNTransportSecurityViolation? {
    if case .transportSecurity(let violation) = kind { violation } else { nil }
  }

  /// The proxy at fault (`proxyFailed`, `untrustedProxy`).
  public var proxy: String? {
    switch kind {
    case .proxyFailed(let proxy, _), .untrustedProxy(let proxy, _): proxy
    default: nil
    }
  }

  /// The port nothing listened on (`connectionRefused`).
  public var port: Int? {
    if case .connectionRefused(_, let port) = kind { port } else { nil }
  }

  /// The timeout that passed, in seconds (`timedOut`).
  public var timeout: TimeInterval? {
    if case .timedOut(_, let seconds) = kind { seconds } else { nil }
  }

  /// The limit that was reached: the body size in bytes (`responseTooLarge`) or the number of
  /// redirects (`tooManyRedirects`).
  public var limit: Int? {
    switch kind {
    case .responseTooLarge(_, let limit), .tooManyRedirects(let limit): limit
    default: nil
    }
  }
}
