@_spi(Locking) import CNPinning

/// What the transport learnt about the TLS connection a request is about to use: collected by
/// the TLS hooks, judged by ``ConnectionVerdict``. Plain values; nothing here points at C state.
package struct ConnectionFacts: Sendable {
  /// How the request came by its connection (the event's kind, one definition).
  package typealias Use = CNConnectionEvent.Kind

  package var use: Use
  /// The negotiated protocol version (0x0303 is TLS 1.2).
  package var protocolVersion: Int
  /// The negotiated cipher suite; nil when it cannot be read.
  var cipher: NegotiatedCipher?
  /// The chain OpenSSL verified for this TLS session; nil when there is none.
  var verified: VerifiedChain?
  /// The application protocol ALPN chose ("h2", "http/1.1"); nil when none was.
  package var applicationProtocol: String? = nil

  package init(
    use: Use, protocolVersion: Int, cipher: NegotiatedCipher?, verified: VerifiedChain?, applicationProtocol: String? = nil
  ) {
    self.use = use
    self.protocolVersion = protocolVersion
    self.cipher = cipher
    self.verified = verified
    self.applicationProtocol = applicationProtocol
  }
}

/// A chain OpenSSL verified in a full handshake, kept with the TLS session so that a resumed
/// session is judged on it. Immutable.
package final class VerifiedChain: Sendable {
  /// The host name (or IP address) and port it was verified for.
  let host: String
  let port: Int
  /// The trust it was verified against (the session's trust store).
  let trust: ObjectIdentifier
  /// Leaf first, ending with the trust anchor.
  let certificates: [CNCertificate]
  /// What the server sent, in its order; empty unless an observer wanted it.
  let presented: [CNCertificate]
  /// What the transport-security policy would refuse in the chain (a small leaf key, a weak
  /// signature below the anchor), read once here rather than for every request.
  let weakness: CertificateWeakness?
  /// The Web-PKI profile's first objection to the chain within `scope`: each part worked out
  /// when a request under the profile first asks (sessions with custom anchors never do; the
  /// part below the anchor costs ~11 µs), then kept.
  func webPKIViolation(_ scope: WebPKIProfile.Scope) -> String? {
    profileVerdicts.withLock { verdicts in
      if verdicts.belowAnchor == nil { verdicts.belowAnchor = .some(WebPKIProfile.violation(belowAnchorOf: certificates)) }
      if let problem = verdicts.belowAnchor ?? nil { return problem }
      guard case .wholeChain(let chosen) = scope else { return nil }
      if verdicts.anchor == nil {
        verdicts.anchor = .some(WebPKIProfile.violation(anchorOf: certificates, chosenAnchors: chosen))
      }
      return verdicts.anchor ?? nil
    }
  }
  private let profileVerdicts = Locked<(belowAnchor: String??, anchor: String??)>((nil, nil))

  package init(host: String, port: Int, trust: ObjectIdentifier, certificates: [CNCertificate], presented: [CNCertificate]) {
    self.host = host
    self.port = port
    self.trust = trust
    self.certificates = certificates
    self.presented = presented
    self.weakness = CertificateWeakness(certificates)
  }
}

/// The first thing the transport-security policy refuses in a verified chain (leaf first).
package enum CertificateWeakness: Sendable, Equatable {
  /// The leaf's key is not RSA ≥ 2048, EC ≥ 256 or Ed25519 (`found` names it, e.g. `RSA-1024`).
  case leafKey(found: String)
  /// A certificate below the anchor is signed with a hash weaker than SHA-256.
  case signatureHash(certificate: String, found: String)

  package init?(_ chain: [CNCertificate]) {
    guard let leaf = chain.first else {
      self = .leafKey(found: "no certificate")
      return
    }
    switch leaf.publicKeyKind {
    case .rsa(let bits) where bits >= 2048: break
    case .ec(let curve) where curve.bits >= 256: break
    case .ed25519: break
    case let kind:
      self = .leafKey(found: kind.description)
      return
    }
    for certificate in chain.dropLast() where !certificate.signatureHash.isSHA256OrStronger {
      self = .signatureHash(
        certificate: VisibleText.quoted(certificate.commonName ?? "a certificate"), found: certificate.signatureHash.description)
      return
    }
    return nil
  }
}
