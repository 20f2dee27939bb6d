import CNPinning

/// The transport-security rules for one host: the policy's, as the exception that covers the host
/// changes them. The one value the checks before the network, the TLS set-up and the verdict
/// read (`CNTransportSecurity.rules(for:)`).
package struct TransportRules: Sendable, Equatable {
  /// The lowest TLS version a handshake offers and accepts: the policy's floor, or the
  /// exception's. A server below it fails the handshake (`tlsHandshakeFailed`).
  package var minimumTLSVersion: CNTLSVersion
  /// Whether the App Transport Security-like rules below are enforced (the policy is on).
  package var isEnforced: Bool
  /// The version the App Transport Security-like rule itself requires: TLS 1.2, or what an
  /// exception sets. A connection below it is a `transportSecurity` violation; a floor the app
  /// raised above it (TLS 1.3) is the app's choice, and a server without it fails the handshake.
  package var requiredTLSVersion: CNTLSVersion = .tls12
  /// Plain `http://` is allowed.
  package var allowsInsecureHTTPLoads = false
  /// Below TLS 1.3, the cipher must be AEAD with ECDHE.
  package var requiresForwardSecrecy = true
  /// Small keys and SHA-1 signatures are accepted.
  package var allowsWeakCertificates = false

  package init(minimumTLSVersion: CNTLSVersion, isEnforced: Bool) {
    self.minimumTLSVersion = minimumTLSVersion
    self.isEnforced = isEnforced
  }

  /// Whether plain `http://` is refused.
  package var refusesInsecureHTTP: Bool { isEnforced && !allowsInsecureHTTPLoads }
  /// Why a plain `http://` request to `host` is refused, or nil: pins cannot be checked without
  /// TLS, and the policy refuses plain http unless an exception allows it. The one rule, for the
  /// session before it connects and for `URLSession.cnPinned` on Apple platforms.
  package func refusal(forPlainHTTPTo host: String, isPinned: Bool) -> CNPinnedSessionError? {
    if isPinned { return .insecureConnectionToPinnedHost(host: host) }
    if refusesInsecureHTTP { return .transportSecurity(.insecureHTTP(host: host)) }
    return nil
  }

  /// Whether weak keys and signature hashes are violations.
  package var refusesWeakCertificates: Bool { isEnforced && !allowsWeakCertificates }
}

/// A session's transport-security policy with its exceptions indexed by host name, built once per
/// session (``CNTransportSecurity/indexed()``).
package struct IndexedTransportSecurity: Sendable {
  let policy: TransportRules
  /// nil without exceptions, as most sessions have: every request asks (`rules(for:)`), and a
  /// lookup in the generic index, which this module cannot specialise, costs about 400
  /// instructions even in an empty one.
  let exceptions: HostIndex<CNTransportSecurityException>?

  /// What applies to `host`: the policy's rules, as the exception that covers the host changes
  /// them (none when the policy is off).
  package func rules(for host: HostName) -> TransportRules {
    guard policy.isEnforced, let exception = exceptions?.lookup(host) else { return policy }
    return exception.applied(to: policy)
  }
}
