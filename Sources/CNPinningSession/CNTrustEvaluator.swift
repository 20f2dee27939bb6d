#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningCurl
import Foundation

/// Verifies a certificate chain for a host outside TLS, with exactly what a ``CNPinnedSession``
/// with the same configuration applies to a server's chain during the handshake: OpenSSL's
/// verification against the configuration's ``CNTrust`` (the `ssl_server` purpose, the same
/// security level, DNS names against DNS SANs and IP addresses against IP SANs, never the
/// subject CN), then its ``CNCertificateProfile`` and the certificate rules of its
/// ``CNTransportSecurity``. The session's TLS hooks and verdict run the same code. Pins are not
/// consulted: judge the verified chain with `CNPinningManager.evaluate(host:chain:at:)`.
///
/// Linux only for now (on Apple platforms, `SecTrustEvaluateWithError` is the platform's own).
public final class CNTrustEvaluator: Sendable {
  private let trustStore: TrustStore
  private let transportSecurity: IndexedTransportSecurity
  private let webPKIScope: WebPKIProfile.Scope?

  /// An evaluator with a session configuration's trust, transport security and TLS floor.
  /// Throws `invalidArgument` when the trust or the transport-security exceptions cannot be used.
  public init(configuration: CNPinnedSessionConfiguration = CNPinnedSessionConfiguration()) throws(CNPinnedSessionError) {
    trustStore = try TrustStore(configuration.trust)
    transportSecurity = try configuration.transportSecurity.indexed()
    webPKIScope = configuration.certificateProfile.scope(under: configuration.trust)
  }

  /// Verifies `chain` — the server's certificate first, then any intermediates — for `host` at
  /// `date`, and returns the verified chain, leaf first and ending with the trust anchor (which
  /// `chain` need not contain). Throws the error a session's request would fail with:
  /// `untrustedChain` (with OpenSSL's reason), `hostnameMismatch`, `certificateExpired`,
  /// `certificateNotYetValid`, `transportSecurity`, or `invalidHost`.
  public func verify(_ chain: [CNCertificate], for host: String, at date: Date = Date()) throws(CNPinnedSessionError)
    -> [CNCertificate]
  {
    let name: HostName
    switch HostName.parse(host) {
    case .success(let parsed): name = parsed
    case .failure(let invalid): throw .invalidHost(host: host, reason: invalid.reason)
    }
    let policy = RequestPolicy(
      host: name.normalized, hostName: name, port: 443, trust: ObjectIdentifier(trustStore), manager: nil,
      unpinnedHosts: .allow, rules: transportSecurity.rules(for: name), wantsPresentedChain: false)
    let result = ChainVerification.verify(
      chain, host: policy.host, isIPAddress: name.isIPAddress, store: trustStore,
      securityLevel: policy.lowersSecurityLevel ? 0 : ChainVerification.defaultSecurityLevel, at: date)
    switch result {
    case .failure(let failure): throw ConnectionVerdict.error(for: failure, under: policy)
    case .success(let verified):
      if let scope = webPKIScope, let problem = WebPKIProfile.violation(verified, scope: scope) {
        throw ConnectionVerdict.webPKIRefusal(problem, host: policy.host)
      }
      if let violation = ConnectionVerdict.certificateViolation(
        CertificateWeakness(verified), policy.rules, host: policy.host)
      {
        throw .transportSecurity(violation)
      }
      return verified
    }
  }
}
#endif
