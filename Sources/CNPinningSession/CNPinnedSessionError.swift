import CNPinning
import Foundation

/// Why a request through a `CNPinnedSession` failed. Certificate problems, pin rejections,
/// handshake failures and network failures are distinct cases, so a caller can tell an attack
/// or a misconfiguration from an outage.
public struct CNPinnedSessionError: Error, Sendable, Equatable {
  /// The failure, with its details; `package` so that cases can be added without breaking
  /// a client's exhaustive `switch` (clients compare `code`).
  package let kind: Kind

  package init(_ kind: Kind) { self.kind = kind }

  /// What kind of failure this is: compare it (`error.code == .invalidURL`); the list may grow.
  public var code: Code { kind.code }

  /// The kinds of request failure.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The code's name, as the static member that holds it is named.
    public let description: String
    private init(_ name: String) { description = name }
    /// The URL is not an absolute http or https URL with a host.
    public static let invalidURL = Code("invalidURL")
    /// The URL's host cannot be verified or pinned as written (a shortened IPv4 address such as
    /// `127.1`, say); nothing was sent.
    public static let invalidHost = Code("invalidHost")
    /// A session argument is malformed.
    public static let invalidArgument = Code("invalidArgument")
    /// The request uses a feature this session does not support (what).
    public static let unsupportedRequest = Code("unsupportedRequest")
    /// The chain does not lead to a trusted anchor (OpenSSL's reason).
    public static let untrustedChain = Code("untrustedChain")
    /// The certificate is not valid for the host name or IP address that was requested.
    public static let hostnameMismatch = Code("hostnameMismatch")
    /// A certificate in the chain has expired.
    public static let certificateExpired = Code("certificateExpired")
    /// A certificate in the chain is not valid yet.
    public static let certificateNotYetValid = Code("certificateNotYetValid")
    /// The verified chain does not satisfy the host's pins.
    public static let pinMismatch = Code("pinMismatch")
    /// The host has no pins and the session refuses unpinned hosts.
    public static let hostNotPinned = Code("hostNotPinned")
    /// A plain `http://` request to a host that has pins: pins cannot be checked without TLS.
    public static let insecureConnectionToPinnedHost = Code("insecureConnectionToPinnedHost")
    /// The connection falls short of the session's transport-security policy.
    public static let transportSecurity = Code("transportSecurity")
    /// The TLS handshake failed before any certificate was judged, for example because client and
    /// server share no protocol version or cipher.
    public static let tlsHandshakeFailed = Code("tlsHandshakeFailed")
    /// Nothing listens on the port.
    public static let connectionRefused = Code("connectionRefused")
    /// The connection could not be made for another reason.
    public static let cannotConnect = Code("cannotConnect")
    /// The host name does not resolve.
    public static let cannotResolveHost = Code("cannotResolveHost")
    /// No connection or no data within the timeout.
    public static let timedOut = Code("timedOut")
    /// The connection broke during the exchange.
    public static let connectionLost = Code("connectionLost")
    /// The server's response is not valid HTTP.
    public static let invalidResponse = Code("invalidResponse")
    /// The response body (decoded) exceeds the configuration's limit for it, in bytes.
    public static let responseTooLarge = Code("responseTooLarge")
    /// More redirects than the configuration allows.
    public static let tooManyRedirects = Code("tooManyRedirects")
    /// The caller cancelled the task.
    public static let cancelled = Code("cancelled")
    /// The session was invalidated.
    public static let sessionInvalidated = Code("sessionInvalidated")
    /// The proxy could not be reached, or refused the tunnel (a CONNECT answered 407, say).
    public static let proxyFailed = Code("proxyFailed")
    /// The HTTPS proxy's certificate is not trusted by the proxy's trust, or not valid for its name.
    public static let untrustedProxy = Code("untrustedProxy")
    /// Another transfer failure (libcurl's message).
    public static let transferFailed = Code("transferFailed")
  }

  /// The URL is not an absolute http or https URL with a host.
  public static func invalidURL(_ value: String) -> CNPinnedSessionError { CNPinnedSessionError(.invalidURL(value)) }
  /// The URL's host cannot be verified or pinned as written (a shortened IPv4 address such as
  /// `127.1`, say); nothing was sent.
  public static func invalidHost(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.invalidHost(host: host, reason: reason))
  }
  /// A session argument is malformed.
  public static func invalidArgument(_ value: String) -> CNPinnedSessionError { CNPinnedSessionError(.invalidArgument(value)) }
  /// The request uses a feature this session does not support (what).
  public static func unsupportedRequest(_ value: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.unsupportedRequest(value))
  }
  /// The chain does not lead to a trusted anchor (OpenSSL's reason).
  public static func untrustedChain(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.untrustedChain(host: host, reason: reason))
  }
  /// The certificate is not valid for the host name or IP address that was requested.
  public static func hostnameMismatch(host: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.hostnameMismatch(host: host))
  }
  /// A certificate in the chain has expired.
  public static func certificateExpired(host: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.certificateExpired(host: host))
  }
  /// A certificate in the chain is not valid yet.
  public static func certificateNotYetValid(host: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.certificateNotYetValid(host: host))
  }
  /// The verified chain does not satisfy the host's pins.
  public static func pinMismatch(_ value: CNPinningFailure) -> CNPinnedSessionError { CNPinnedSessionError(.pinMismatch(value)) }
  /// The host has no pins and the session refuses unpinned hosts.
  public static func hostNotPinned(host: String) -> CNPinnedSessionError { CNPinnedSessionError(.hostNotPinned(host: host)) }
  /// A plain `http://` request to a host that has pins: pins cannot be checked without TLS.
  public static func insecureConnectionToPinnedHost(host: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.insecureConnectionToPinnedHost(host: host))
  }
  /// The connection falls short of the session's transport-security policy.
  public static func transportSecurity(_ value: CNTransportSecurityViolation) -> CNPinnedSessionError {
    CNPinnedSessionError(.transportSecurity(value))
  }
  /// The TLS handshake failed before any certificate was judged, for example because client and
  /// server share no protocol version or cipher.
  public static func tlsHandshakeFailed(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.tlsHandshakeFailed(host: host, reason: reason))
  }
  /// Nothing listens on the port.
  public static func connectionRefused(host: String, port: Int) -> CNPinnedSessionError {
    CNPinnedSessionError(.connectionRefused(host: host, port: port))
  }
  /// The connection could not be made for another reason.
  public static func cannotConnect(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.cannotConnect(host: host, reason: reason))
  }
  /// The host name does not resolve.
  public static func cannotResolveHost(host: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.cannotResolveHost(host: host))
  }
  /// No connection or no data within the timeout.
  public static func timedOut(host: String, seconds: TimeInterval) -> CNPinnedSessionError {
    CNPinnedSessionError(.timedOut(host: host, seconds: seconds))
  }
  /// The connection broke during the exchange.
  public static func connectionLost(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.connectionLost(host: host, reason: reason))
  }
  /// The server's response is not valid HTTP.
  public static func invalidResponse(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.invalidResponse(host: host, reason: reason))
  }
  /// The response body (decoded) exceeds the configuration's limit for it, in bytes.
  public static func responseTooLarge(host: String, limit: Int) -> CNPinnedSessionError {
    CNPinnedSessionError(.responseTooLarge(host: host, limit: limit))
  }
  /// More redirects than the configuration allows.
  public static func tooManyRedirects(_ value: Int) -> CNPinnedSessionError { CNPinnedSessionError(.tooManyRedirects(value)) }
  /// The caller cancelled the task.
  public static let cancelled = CNPinnedSessionError(.cancelled)
  /// The session was invalidated.
  public static let sessionInvalidated = CNPinnedSessionError(.sessionInvalidated)
  /// The proxy could not be reached, or refused the tunnel (a CONNECT answered 407, say).
  public static func proxyFailed(proxy: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.proxyFailed(proxy: proxy, reason: reason))
  }
  /// The HTTPS proxy's certificate is not trusted by the proxy's trust, or not valid for its name.
  public static func untrustedProxy(proxy: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.untrustedProxy(proxy: proxy, reason: reason))
  }
  /// Another transfer failure (libcurl's message).
  public static func transferFailed(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.transferFailed(host: host, reason: reason))
  }
}

extension CNPinnedSessionError {
  /// Every failure with its details (the cases the public factories make).
  package enum Kind: Sendable, Equatable {
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
    var isTrustFailure: Bool {
      switch self {
      case .untrustedChain, .hostnameMismatch, .certificateExpired, .certificateNotYetValid, .pinMismatch,
        .hostNotPinned, .insecureConnectionToPinnedHost, .transportSecurity, .untrustedProxy:
        return true
      default:
        return false
      }
    }

    /// The case's code.
    var code: Code {
      switch self {
      case .invalidURL: .invalidURL
      case .invalidHost: .invalidHost
      case .invalidArgument: .invalidArgument
      case .unsupportedRequest: .unsupportedRequest
      case .untrustedChain: .untrustedChain
      case .hostnameMismatch: .hostnameMismatch
      case .certificateExpired: .certificateExpired
      case .certificateNotYetValid: .certificateNotYetValid
      case .pinMismatch: .pinMismatch
      case .hostNotPinned: .hostNotPinned
      case .insecureConnectionToPinnedHost: .insecureConnectionToPinnedHost
      case .transportSecurity: .transportSecurity
      case .tlsHandshakeFailed: .tlsHandshakeFailed
      case .connectionRefused: .connectionRefused
      case .cannotConnect: .cannotConnect
      case .cannotResolveHost: .cannotResolveHost
      case .timedOut: .timedOut
      case .connectionLost: .connectionLost
      case .invalidResponse: .invalidResponse
      case .responseTooLarge: .responseTooLarge
      case .tooManyRedirects: .tooManyRedirects
      case .cancelled: .cancelled
      case .sessionInvalidated: .sessionInvalidated
      case .proxyFailed: .proxyFailed
      case .untrustedProxy: .untrustedProxy
      case .transferFailed: .transferFailed
      }
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
      .invalidResponse(let host, _), .responseTooLarge(let host, _), .transferFailed(let host, _):
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
      .proxyFailed(_, let reason), .untrustedProxy(_, let reason), .transferFailed(_, let reason):
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
