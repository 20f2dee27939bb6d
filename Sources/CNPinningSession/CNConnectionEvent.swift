import CNPinning

/// What a session decided about one TLS connection (or one reuse of a connection), for logging
/// and for tools such as `cnpin get -v`.
public struct CNConnectionEvent: Sendable {
  /// The host the connection was made for.
  public let host: String
  /// The port connected to.
  public let port: Int
  /// How the request came by its connection: new, reused or resumed.
  public let kind: Kind
  /// The chain OpenSSL verified, leaf first, ending with the trust anchor; empty when trust failed.
  public let verifiedChain: [CNCertificate]
  /// The certificates the server sent, in the order it sent them (empty for a reused connection
  /// or a resumed session, and unless an observer was set when the connection was made).
  public let presentedChain: [CNCertificate]
  /// The pin decision; nil when trust or host-name verification failed first.
  public let pinning: CNPinningResult?
  /// Why the connection was refused, when it was.
  public let error: CNPinnedSessionError?
  /// The negotiated TLS version; nil when the transport does not say (Apple platforms) or no
  /// handshake completed.
  public let tlsVersion: CNTLSVersion?
  /// The HTTP version agreed by ALPN ("HTTP/2", "HTTP/1.1"); nil when the transport does not say
  /// or the server chose none.
  public let httpVersion: String?
  /// The `label` of the ``CNHTTPRequest`` that caused the event (an OpenAPI operation ID, say);
  /// nil for other requests.
  public let requestLabel: String?

  /// How a request came by its connection; every kind is judged by the pins.
  public enum Kind: Sendable, Hashable {
    /// A new connection with a full handshake: the chain was verified just now.
    case new
    /// An open connection an earlier request used (HTTP/1.1 keep-alive or an HTTP/2 stream):
    /// the chain verified when it was made was judged again.
    case reused
    /// A new connection that resumed an earlier TLS session: the server sent no certificates,
    /// and the chain verified when the session was made was judged again.
    case resumed
  }
}
