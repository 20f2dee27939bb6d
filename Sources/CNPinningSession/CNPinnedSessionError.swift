import CNPinning
import Foundation

/// Why a request through a `CNPinnedSession` failed. Certificate problems, pin rejections,
/// handshake failures and network failures are distinct cases, so a caller can tell an attack
/// or a misconfiguration from an outage.
public enum CNPinnedSessionError: Error, Sendable, Equatable {
  /// The URL is not an absolute http or https URL with a host.
  case invalidURL(String)
  /// The URL's host cannot be verified or pinned as written (a shortened IPv4 address such as
  /// `127.1`, say); nothing was sent.
  case invalidHost(host: String, reason: String)
  /// A session argument is malformed.
  case invalidArgument(String)
  /// The request uses a feature this session does not support (what).
  case unsupportedRequest(String)
  /// The chain does not lead to a trusted anchor (OpenSSL's reason).
  case untrustedChain(host: String, reason: String)
  /// The certificate is not valid for the host name or IP address that was requested.
  case hostnameMismatch(host: String)
  /// A certificate in the chain has expired.
  case certificateExpired(host: String)
  /// A certificate in the chain is not valid yet.
  case certificateNotYetValid(host: String)
  /// The verified chain does not satisfy the host's pins.
  case pinMismatch(CNPinningFailure)
  /// The host has no pins and the session refuses unpinned hosts.
  case hostNotPinned(host: String)
  /// A plain `http://` request to a host that has pins: pins cannot be checked without TLS.
  case insecureConnectionToPinnedHost(host: String)
  /// The connection falls short of the session's transport-security policy.
  case transportSecurity(CNTransportSecurityViolation)
  /// The TLS handshake failed before any certificate was judged, for example because client and
  /// server share no protocol version or cipher.
  case tlsHandshakeFailed(host: String, reason: String)
  /// Nothing listens on the port.
  case connectionRefused(host: String, port: Int)
  /// The connection could not be made for another reason.
  case cannotConnect(host: String, reason: String)
  /// The host name does not resolve.
  case cannotResolveHost(host: String)
  /// No connection or no data within the timeout.
  case timedOut(host: String, seconds: TimeInterval)
  /// The connection broke during the exchange.
  case connectionLost(host: String, reason: String)
  /// The server's response is not valid HTTP.
  case invalidResponse(host: String, reason: String)
  /// The response body (decoded) exceeds the configuration's limit for it, in bytes.
  case responseTooLarge(host: String, limit: Int)
  /// More redirects than the configuration allows.
  case tooManyRedirects(Int)
  /// The caller cancelled the task.
  case cancelled
  /// The session was invalidated.
  case sessionInvalidated
  /// The proxy could not be reached, or refused the tunnel (a CONNECT answered 407, say).
  case proxyFailed(proxy: String, reason: String)
  /// The HTTPS proxy's certificate is not trusted by the proxy's trust, or not valid for its name.
  case untrustedProxy(proxy: String, reason: String)
  /// Another transfer failure (libcurl's message).
  case transferFailed(host: String, reason: String)

  /// Whether the failure is a certificate or pin verdict (as opposed to the network or the caller).
  public var isTrustFailure: Bool {
    switch self {
    case .untrustedChain, .hostnameMismatch, .certificateExpired, .certificateNotYetValid, .pinMismatch,
      .hostNotPinned, .insecureConnectionToPinnedHost, .transportSecurity, .untrustedProxy:
      return true
    default:
      return false
    }
  }
}

extension CNPinnedSessionError: CustomStringConvertible {
  public var description: String {
    switch self {
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
    }
  }
}
