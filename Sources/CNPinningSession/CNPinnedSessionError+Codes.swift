import CNPinning
import Foundation

/// Why a request through a ``CNPinnedSession`` failed. Certificate problems, pin rejections,
/// handshake failures and network failures are distinct cases, so a caller can tell an attack
/// or a misconfiguration from an outage.
public struct CNPinnedSessionError: Error, Sendable, Equatable {
  /// The failure, with its details; `package` so that cases can be added without breaking
  /// a client's exhaustive `switch` (clients compare `code`).
  package let kind: Kind
  /// What was seen of the connection before the failure, when a `probe` got as far as a
  /// handshake (the chain the server presented, say); nil for every other request.
  public var connection: CNConnectionEvent? { seen?.event }
  /// Boxed: an event holds an error of this type.
  private let seen: SeenConnection?

  private final class SeenConnection: Sendable {
    let event: CNConnectionEvent
    init(_ event: CNConnectionEvent) { self.event = event }
  }

  package init(_ kind: Kind, connection: CNConnectionEvent? = nil) {
    self.kind = kind
    self.seen = connection.map(SeenConnection.init)
  }

  /// Equal when the kinds and their details are; the probe's `connection` is not compared.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }

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
    /// The request went out over a connection the pins never judged (URLSession on Apple platforms
    /// asks about a connection only when it opens one, and not at all when it resumes a TLS session
    /// or may reuse another host's connection). A data task's response is discarded before it
    /// reaches the app; a stream's connection is known only at its end, so a stream ends with this
    /// error after the part of its body that had arrived. The URLSession that sent it is taken out
    /// of service: later requests go through a new one, with connections of its own.
    public static let connectionNotJudged = Code("connectionNotJudged")
    /// The session could not set up what requests need on this machine (libcurl, its network
    /// thread, a file for a download); nothing was sent.
    public static let setupFailed = Code("setupFailed")
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
  /// The request went out over a connection the pins never judged (URLSession on Apple platforms
  /// asks about a connection only when it opens one, and not at all when it resumes a TLS session
  /// or may reuse another host's connection). A data task's response is discarded before it
  /// reaches the app; a stream's connection is known only at its end, so a stream ends with this
  /// error after the part of its body that had arrived. The URLSession that sent it is taken out
  /// of service: later requests go through a new one, with connections of its own.
  public static func connectionNotJudged(host: String, reason: String) -> CNPinnedSessionError {
    CNPinnedSessionError(.connectionNotJudged(host: host, reason: reason))
  }
  /// The session could not set up what requests need on this machine (libcurl, its network
  /// thread, a file for a download); nothing was sent.
  public static func setupFailed(reason: String) -> CNPinnedSessionError { CNPinnedSessionError(.setupFailed(reason: reason)) }

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
    /// The verified chain does not satisfy the host's pins. Boxed (`indirect`), as is
    /// `transportSecurity`: their details are large, and every error, optional error and result
    /// a request carries would otherwise be as large (168 bytes, copied several times a request).
    indirect case pinMismatch(CNPinningFailure)
    /// The host has no pins and the session refuses unpinned hosts.
    case hostNotPinned(host: String)
    /// A plain `http://` request to a host that has pins: pins cannot be checked without TLS.
    case insecureConnectionToPinnedHost(host: String)
    /// The connection falls short of the session's transport-security policy.
    indirect case transportSecurity(CNTransportSecurityViolation)
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
    /// The request went out over a connection the pins never judged (URLSession on Apple platforms
    /// asks about a connection only when it opens one, and not at all when it resumes a TLS session
    /// or may reuse another host's connection). A data task's response is discarded before it
    /// reaches the app; a stream's connection is known only at its end, so a stream ends with this
    /// error after the part of its body that had arrived. The URLSession that sent it is taken out
    /// of service: later requests go through a new one, with connections of its own.
    case connectionNotJudged(host: String, reason: String)
    /// The session could not set up what requests need on this machine (libcurl, its network
    /// thread, a file for a download); nothing was sent.
    case setupFailed(reason: String)

    /// The case's code.
    package var code: Code {
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
      case .connectionNotJudged: .connectionNotJudged
      case .setupFailed: .setupFailed
      }
    }
  }
}
