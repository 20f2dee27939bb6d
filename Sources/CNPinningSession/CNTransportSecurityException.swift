import CNPinning

/// How one host (and, with `includesSubdomains`, the hosts below it) may fall short of the
/// policy. The default relaxes nothing.
public struct CNTransportSecurityException: Sendable, Equatable {
  /// Whether the exception also covers the domain's subdomains.
  public var includesSubdomains: Bool
  /// Allows plain `http://` (NSExceptionAllowsInsecureHTTPLoads).
  public var allowsInsecureHTTPLoads: Bool
  /// The lowest TLS version accepted (NSExceptionMinimumTLSVersion); nil keeps the policy's.
  public var minimumTLSVersion: CNTLSVersion?
  /// When false, ciphers without forward secrecy or AEAD are accepted
  /// (NSExceptionRequiresForwardSecrecy).
  public var requiresForwardSecrecy: Bool
  /// Accepts small keys and SHA-1 signatures.
  public var allowsWeakCertificates: Bool

  /// An exception; each argument relaxes one rule, as the NSExceptionDomains key of the same name.
  public init(
    includesSubdomains: Bool = false, allowsInsecureHTTPLoads: Bool = false, minimumTLSVersion: CNTLSVersion? = nil,
    requiresForwardSecrecy: Bool = true, allowsWeakCertificates: Bool = false
  ) {
    self.includesSubdomains = includesSubdomains
    self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
    self.minimumTLSVersion = minimumTLSVersion
    self.requiresForwardSecrecy = requiresForwardSecrecy
    self.allowsWeakCertificates = allowsWeakCertificates
  }

  /// `rules` as this exception changes them.
  package func applied(to rules: TransportRules) -> TransportRules {
    var changed = rules
    if let minimumTLSVersion {
      changed.minimumTLSVersion = minimumTLSVersion
      changed.requiredTLSVersion = minimumTLSVersion
    }
    changed.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
    changed.requiresForwardSecrecy = requiresForwardSecrecy
    changed.allowsWeakCertificates = allowsWeakCertificates
    return changed
  }
}
