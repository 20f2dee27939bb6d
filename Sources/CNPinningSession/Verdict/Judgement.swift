import CNPinning

/// A verdict on one request's connection, with what the effects (observer events, failure
/// reports) need: complete when it is made, never filled in afterwards.
///
/// Its fields live in one immutable object, so that a judgement is passed on (into a request's
/// judgements, a kept verdict, a report, the effects) for a retain: copied field by field, its
/// optional error and pin result went through the runtime's generic value witnesses, about 950
/// instructions a copy and destroy, several times a request.
package struct Judgement: Sendable {
  private final class Fields: Sendable {
    let use: ConnectionFacts.Use
    let verifiedChain: [CNCertificate]
    let presentedChain: [CNCertificate]
    let pinning: CNPinningResult?
    let rejection: CNPinnedSessionError?
    let protocolVersion: Int
    let applicationProtocol: String?

    init(
      use: ConnectionFacts.Use, verifiedChain: [CNCertificate], presentedChain: [CNCertificate],
      pinning: CNPinningResult?, rejection: CNPinnedSessionError?, protocolVersion: Int, applicationProtocol: String?
    ) {
      self.use = use
      self.verifiedChain = verifiedChain
      self.presentedChain = presentedChain
      self.pinning = pinning
      self.rejection = rejection
      self.protocolVersion = protocolVersion
      self.applicationProtocol = applicationProtocol
    }
  }

  private let fields: Fields

  package var use: ConnectionFacts.Use { fields.use }
  /// The verified chain, leaf first; empty when trust failed.
  package var verifiedChain: [CNCertificate] { fields.verifiedChain }
  package var presentedChain: [CNCertificate] { fields.presentedChain }
  /// The pin decision; nil when the connection was refused before the pins were consulted.
  package var pinning: CNPinningResult? { fields.pinning }
  /// Why the request may not use the connection; nil when it may.
  package var rejection: CNPinnedSessionError? { fields.rejection }
  /// The TLS version (0x0304 is TLS 1.3) and ALPN protocol of the connection, when known.
  package var protocolVersion: Int { fields.protocolVersion }
  package var applicationProtocol: String? { fields.applicationProtocol }

  package init(
    use: ConnectionFacts.Use, verifiedChain: [CNCertificate], presentedChain: [CNCertificate], pinning: CNPinningResult?,
    rejection: CNPinnedSessionError?, protocolVersion: Int = 0, applicationProtocol: String? = nil
  ) {
    fields = Fields(
      use: use, verifiedChain: verifiedChain, presentedChain: presentedChain, pinning: pinning, rejection: rejection,
      protocolVersion: protocolVersion, applicationProtocol: applicationProtocol)
  }
}
