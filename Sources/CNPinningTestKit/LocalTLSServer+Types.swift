// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation

extension LocalTLSServer {
  /// The loopback address to listen on.
  public enum Address: Sendable {
    case ipv4Loopback
    case ipv6Loopback

    var text: String { self == .ipv4Loopback ? "127.0.0.1" : "::1" }
  }

  /// One header field of a request or response, as written.
  public struct Header: Sendable, Equatable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
      self.name = name
      self.value = value
    }
  }

  /// An HTTP request the server received.
  public struct Request: Sendable {
    public let method: String
    /// The request target, e.g. `/path?query`.
    public let target: String
    public let headers: [Header]
    public let body: Data
    /// The server name the client sent in the TLS handshake (SNI), if any.
    public let serverName: String?

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
      headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
  }

  /// A canned HTTP response.
  public struct Response: Sendable {
    public var status: Int
    public var headers: [Header]
    public var body: Data
    /// Seconds to wait before answering (to test timeouts and cancellation).
    public var delay: TimeInterval
    /// Sends the body in pieces of `pieceSize` bytes (after the head), calling `beforePiece` with
    /// each piece's index from 1 on before sending it, on the connection's thread: a test can
    /// hold a piece back until its reader has had the ones before. nil: all at once.
    public var pacing: (pieceSize: Int, beforePiece: @Sendable (_ index: Int) -> Void)?
    /// Bytes sent as they are in place of the head and body, after which the connection ends,
    /// with TLS close_notify or without (a FIN alone): for heads no well-behaved server writes.
    public var verbatim: (bytes: [UInt8], closeNotify: Bool)?

    public init(
      status: Int = 200, headers: [Header] = [], body: Data = Data(), delay: TimeInterval = 0,
      pacing: (pieceSize: Int, beforePiece: @Sendable (_ index: Int) -> Void)? = nil
    ) {
      self.status = status
      self.headers = headers
      self.body = body
      self.delay = delay
      self.pacing = pacing
    }

    /// `text` sent as it is, then the end of the connection (see `verbatim`).
    public static func verbatim(_ text: String, closeNotify: Bool) -> Response {
      var response = Response()
      response.verbatim = (Array(text.utf8), closeNotify)
      return response
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: Int = 200) -> Response {
      Response(status: status, headers: [Header("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// A redirect to `location`.
    public static func redirect(to location: String, status: Int = 302) -> Response {
      Response(status: status, headers: [Header("Location", location)])
    }
  }

  /// What the server does with a connection.
  public enum Behavior: Sendable {
    /// TLS, then HTTP/1.1.
    case normal
    /// Writes bytes that are not TLS and closes, without reading the client's hello.
    case notTLS
    /// Plain HTTP/1.1, no TLS at all.
    case plainHTTP
    /// Reads the client's hello and never answers (until stopped).
    case stallHandshake
    /// Completes the TLS handshake, then closes without reading the request.
    case closeAfterHandshake
  }

  /// Random session-ticket keys to give several servers, so that they resume each other's sessions.
  public static func randomTicketKeys() -> [UInt8] {
    (0..<80).map { _ in UInt8.random(in: 0...255) }
  }

  /// How the server is set up.
  public struct Configuration: Sendable {
    /// The server certificate and its key.
    public var identity: TestIdentity
    /// The certificates sent after the leaf; nil sends the identity's issuers except the root.
    public var chain: [CNCertificate]?
    /// More certificates sent after `chain` (unrelated ones, or look-alikes of pinned ones).
    public var extraCertificates: [CNCertificate] = []
    public var address: Address = .ipv4Loopback
    public var minimumTLSVersion: CNTLSVersion = .tls12
    public var maximumTLSVersion: CNTLSVersion = .tls13
    /// OpenSSL cipher list for TLS 1.2 and below, e.g. "AES128-SHA256" (nil: OpenSSL's default).
    public var cipherList: String?
    /// OpenSSL security level; tests of legacy protocols need 0.
    public var securityLevel: Int32?
    /// Whether connections stay open for further requests.
    public var keepAlive = true
    /// How many requests one connection may carry before the server closes it.
    public var maximumRequestsPerConnection = 100_000
    /// The 80 bytes of session-ticket keys; servers given the same keys resume each other's
    /// sessions (nil: a random key per server, OpenSSL's default).
    public var sessionTicketKeys: [UInt8]?
    /// After each response, the server starts a TLS 1.2 renegotiation (HelloRequest) on the
    /// connection and carries on reading. Needs `maximumTLSVersion` `.tls12`.
    public var renegotiatesAfterEachResponse = false
    /// Seconds an open connection may stay silent before the server closes it.
    public var idleTimeout: Int = 60
    /// Whether `requests` keeps every request (a long soak turns this off so that the server's
    /// own log does not count as the client's memory growth).
    public var recordsRequests = true
    public var behavior: Behavior = .normal
    /// Whether ALPN offers HTTP/2 (chosen when the client offers it): every stream is answered
    /// `200` with `hello` and recorded without method, target or headers (see `HTTP2Connection`).
    public var servesHTTP2 = false
    /// A fault the server commits `faultCount` times (on the first connections or requests it
    /// applies to), serving normally before and after.
    public var fault: ServerFault?
    public var faultCount = 1
    /// Answers each request.
    public var handler: @Sendable (Request) -> Response

    public init(identity: TestIdentity, handler: @escaping @Sendable (Request) -> Response = { _ in .text("hello") }) {
      self.identity = identity
      self.handler = handler
    }
  }
}
#endif
