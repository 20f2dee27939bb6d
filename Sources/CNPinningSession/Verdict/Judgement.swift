import CNPinning

/// A verdict on one request's connection, with what the effects (observer events, failure
/// reports) need.
struct Judgement: Sendable {
  let use: ConnectionFacts.Use
  /// The verified chain, leaf first; empty when trust failed.
  let verifiedChain: [CNCertificate]
  let presentedChain: [CNCertificate]
  /// The pin decision; nil when the connection was refused before the pins were consulted.
  let pinning: CNPinningResult?
  /// Why the request may not use the connection; nil when it may.
  let rejection: CNPinnedSessionError?
  /// The TLS version (0x0304 is TLS 1.3) and ALPN protocol of the connection, when known.
  var protocolVersion = 0
  var applicationProtocol: String? = nil
}
