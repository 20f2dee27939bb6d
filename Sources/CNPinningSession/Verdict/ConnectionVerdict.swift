import CNPinning
import Foundation

/// The one place where a request's connection is judged: a pure function of the facts the TLS
/// hooks collected and the session's policy at the time the request starts. New connections,
/// reused connections, resumed TLS sessions and HTTP/2 streams all come through `judge`.
package enum ConnectionVerdict {
  /// Whether a request may use a connection whose handshake succeeded, and why not.
  ///
  /// The chain must have been verified for this host, port and trust, must be valid at `now`,
  /// and must satisfy the transport-security rules, the pins in force and the unpinned-host rule.
  package static func judge(_ facts: ConnectionFacts, under policy: RequestPolicy, at now: Date) -> Judgement {
    guard let verified = facts.verified else {
      return refuse(facts, .untrustedChain(host: policy.host, reason: "the connection carries no verified chain"))
    }
    let presented = facts.use == .new ? verified.presented : []
    func refusal(_ error: CNPinnedSessionError) -> Judgement {
      Judgement(
        use: facts.use, verifiedChain: verified.certificates, presentedChain: presented, pinning: nil, rejection: error,
        protocolVersion: facts.protocolVersion, applicationProtocol: facts.applicationProtocol)
    }
    guard verified.host == policy.host, verified.port == policy.port, verified.trust == policy.trust else {
      return refusal(
        .untrustedChain(
          host: policy.host,
          reason:
            "the TLS session was verified for another host, port or trust (\(verified.host):\(verified.port)), not for this request"
        ))
    }
    if let validity = validityFailure(verified.certificates, host: policy.host, at: now) { return refusal(validity) }
    if let scope = policy.webPKIScope, let problem = verified.webPKIViolation(scope) {
      return refusal(webPKIRefusal(problem, host: policy.host))
    }
    if policy.rules.isEnforced,
      let violation = negotiationViolation(facts, policy.rules, host: policy.host)
        ?? certificateViolation(verified.weakness, policy.rules, host: policy.host)
    {
      return refusal(.transportSecurity(violation))
    }
    let pinning = policy.manager?.evaluate(policy.hostName, chain: verified.certificates, at: now) ?? .notPinned
    let rejection: CNPinnedSessionError?
    switch pinning {
    case .accepted, .reportOnly: rejection = nil
    case .notPinned: rejection = policy.unpinnedHosts.refusal(host: policy.host)
    case .rejected(let failure): rejection = .pinMismatch(failure)
    }
    return Judgement(
      use: facts.use, verifiedChain: verified.certificates, presentedChain: presented, pinning: pinning, rejection: rejection,
      protocolVersion: facts.protocolVersion, applicationProtocol: facts.applicationProtocol)
  }

  /// The judgement on a handshake that failed because OpenSSL refused the chain; nil when the
  /// handshake failed for another reason (the error mapping explains those).
  package static func judgeRefusedChain(_ facts: HandshakeFailureFacts, under policy: RequestPolicy) -> Judgement? {
    guard let failure = facts.verificationFailure else { return nil }
    return Judgement(
      use: .new, verifiedChain: [], presentedChain: facts.presented, pinning: nil,
      rejection: error(for: failure, under: policy))
  }

  /// The error for OpenSSL's refusal of a chain. Refusals of weak keys and digests are
  /// transport-security violations when that policy is on (OpenSSL's security level enforces
  /// them for us).
  package static func error(for failure: VerificationFailure, under policy: RequestPolicy) -> CNPinnedSessionError {
    let host = policy.host
    let weakIsViolation = policy.rules.refusesWeakCertificates
    switch failure {
    case .hostnameMismatch: return .hostnameMismatch(host: host)
    case .expired: return .certificateExpired(host: host)
    case .notYetValid: return .certificateNotYetValid(host: host)
    case .leafKeyTooSmall(let found) where weakIsViolation:
      return .transportSecurity(.leafKey(host: host, found: found))
    case .weakSignatureHash(let certificate, let found) where weakIsViolation:
      return .transportSecurity(.signatureHash(host: host, certificate: certificate, found: found))
    case .leafKeyTooSmall(let found): return .untrustedChain(host: host, reason: "the leaf key (\(found)) is too small")
    // Transport security's key rule is the leaf's (as ATS's); a CA's key is a trust matter.
    case .caKeyTooSmall(let certificate, let found):
      return .untrustedChain(host: host, reason: "the CA certificate \(certificate) has a key (\(found)) that is too small")
    case .weakSignatureHash(let certificate, let found):
      return .untrustedChain(host: host, reason: "\(certificate) is signed with \(found), which is too weak")
    case .untrusted(let reason): return .untrustedChain(host: host, reason: reason)
    }
  }

  /// The transport-security reading of a handshake that failed without a verdict on the chain:
  /// a server that chose, or could only offer, a version below the policy's minimum.
  package static func versionViolation(_ facts: HandshakeFailureFacts, under policy: RequestPolicy, offered: CNTLSVersion)
    -> CNTransportSecurityViolation?
  {
    guard policy.rules.isEnforced else { return nil }
    let required = policy.rules.requiredTLSVersion
    if let version = facts.serverHelloVersion, version < required.rawValue {
      return .protocolVersion(host: policy.host, required: required, found: CNTLSVersion(rawValue: version))
    }
    // We offered every version the policy allows; the server wanted none of them.
    if facts.serverRefusedVersions, offered <= required {
      return .protocolVersion(host: policy.host, required: required, found: nil)
    }
    return nil
  }

  private static func refuse(_ facts: ConnectionFacts, _ error: CNPinnedSessionError) -> Judgement {
    Judgement(
      use: facts.use, verifiedChain: [], presentedChain: [], pinning: nil, rejection: error,
      protocolVersion: facts.protocolVersion, applicationProtocol: facts.applicationProtocol)
  }

  /// Every certificate must be valid at `now`: a chain kept with a TLS session, or an open
  /// connection, can outlive its leaf.
  private static func validityFailure(_ chain: [CNCertificate], host: String, at now: Date) -> CNPinnedSessionError? {
    for certificate in chain {
      if now > certificate.notValidAfter { return .certificateExpired(host: host) }
      if now < certificate.notValidBefore { return .certificateNotYetValid(host: host) }
    }
    return nil
  }

  /// The negotiated version and cipher against the requirements.
  private static func negotiationViolation(
    _ facts: ConnectionFacts, _ requirements: TransportRules, host: String
  ) -> CNTransportSecurityViolation? {
    if facts.protocolVersion < requirements.requiredTLSVersion.rawValue {
      return .protocolVersion(
        host: host, required: requirements.requiredTLSVersion, found: CNTLSVersion(rawValue: facts.protocolVersion))
    }
    guard requirements.requiresForwardSecrecy, facts.protocolVersion < CNTLSVersion.tls13.rawValue else { return nil }
    guard let cipher = facts.cipher else { return .cipherSuite(host: host, found: "an unknown cipher") }
    return cipher.isAuthenticatedEncryption && cipher.isForwardSecret ? nil : .cipherSuite(host: host, found: cipher.name)
  }

  /// The error for a chain the Web-PKI profile refuses.
  package static func webPKIRefusal(_ problem: String, host: String) -> CNPinnedSessionError {
    .untrustedChain(host: host, reason: "the Web-PKI profile refuses it: \(problem)")
  }

  /// The verified chain against the key-size and signature-hash rules.
  package static func certificateViolation(
    _ weakness: CertificateWeakness?, _ requirements: TransportRules, host: String
  ) -> CNTransportSecurityViolation? {
    guard requirements.refusesWeakCertificates, let weakness else { return nil }
    switch weakness {
    case .leafKey(let found): return .leafKey(host: host, found: found)
    case .signatureHash(let certificate, let found): return .signatureHash(host: host, certificate: certificate, found: found)
    }
  }
}
