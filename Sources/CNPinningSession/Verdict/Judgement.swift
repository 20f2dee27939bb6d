import CNPinning

/// A verdict on one request's connection, with what the effects (observer events, failure
/// reports) need: complete when it is made, never filled in afterwards.
///
/// An immutable object rather than a struct, so that a judgement is passed on (into a request's
/// judgements, a kept verdict, a report, the effects) for a retain: copied field by field, its
/// optional error and pin result went through the runtime's generic value witnesses several
/// times a request (about 5,000 instructions of a sequential `exchange(_:)`).
package final class Judgement: Sendable {
  package let use: ConnectionFacts.Use
  /// The verified chain, leaf first; empty when trust failed.
  package let verifiedChain: [CNCertificate]
  package let presentedChain: [CNCertificate]
  /// The pin decision; nil when the connection was refused before the pins were consulted.
  package let pinning: CNPinningResult?
  /// Why the request may not use the connection; nil when it may.
  package let rejection: CNPinnedSessionError?
  /// The TLS version (0x0304 is TLS 1.3) and ALPN protocol of the connection, when known.
  package let protocolVersion: Int
  package let applicationProtocol: String?

  package init(
    use: ConnectionFacts.Use, verifiedChain: [CNCertificate], presentedChain: [CNCertificate], pinning: CNPinningResult?,
    rejection: CNPinnedSessionError?, protocolVersion: Int = 0, applicationProtocol: String? = nil
  ) {
    self.use = use
    self.verifiedChain = verifiedChain
    self.presentedChain = presentedChain
    self.pinning = pinning
    self.rejection = rejection
    self.protocolVersion = protocolVersion
    self.applicationProtocol = applicationProtocol
  }

  /// Whether the pin result is one a failure report could come of
  /// (`CNPinningResult.mayBeReported`), read in place, so that most requests, whose result is
  /// an acceptance, do not copy it to find out.
  package var pinningMayBeReported: Bool { pinning?.mayBeReported ?? false }
}
