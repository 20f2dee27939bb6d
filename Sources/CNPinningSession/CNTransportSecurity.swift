import CNPinning

/// An App Transport Security-like policy for a session, on by default: TLS 1.2 or later; a leaf
/// key of RSA ≥ 2048 or EC ≥ 256 bits; SHA-2 (≥ 256-bit) signatures on every certificate below
/// the anchor; AES-GCM or ChaCha20-Poly1305 with ECDHE (or TLS 1.3) forward secrecy; no plain
/// `http://`. Exceptions relax it per host, like `NSExceptionDomains`.
public struct CNTransportSecurity: Sendable, Equatable {
  /// Whether the rules are applied at all.
  public var isEnabled: Bool
  /// The lowest TLS version a connection may use: TLS 1.2 by default, `.tls13` to refuse TLS 1.2
  /// servers. The session's one TLS floor: every handshake offers it, also when ``isEnabled`` is
  /// false; an exception's ``minimumTLSVersion`` replaces it for the hosts the exception covers.
  public var minimumTLSVersion: CNTLSVersion
  /// Relaxations by host name; a key with `includesSubdomains` also covers the hosts below it.
  public var exceptions: [String: CNTransportSecurityException]

  /// The rules, on by default, with exceptions keyed by domain.
  public init(
    isEnabled: Bool = true, minimumTLSVersion: CNTLSVersion = .tls12,
    exceptions: [String: CNTransportSecurityException] = [:]
  ) {
    self.isEnabled = isEnabled
    self.minimumTLSVersion = minimumTLSVersion
    self.exceptions = exceptions
  }

  /// No transport-security requirements beyond TLS itself.
  public static var disabled: CNTransportSecurity { CNTransportSecurity(isEnabled: false) }

  /// The policy ready for lookups. Throws `invalidArgument` for an exception whose key is not a
  /// host name, rather than ignoring it.
  package func indexed() throws(CNPinnedSessionError) -> IndexedTransportSecurity {
    let policy = TransportRules(minimumTLSVersion: minimumTLSVersion, isEnforced: isEnabled)
    guard isEnabled, !exceptions.isEmpty else { return IndexedTransportSecurity(policy: policy, exceptions: nil) }
    var index = HostIndex<CNTransportSecurityException>()
    var seen: [String: String] = [:]
    for (key, exception) in exceptions.sorted(by: { $0.key < $1.key }) {
      let name: HostName
      switch HostName.parse(key) {
      case .success(let parsed): name = parsed
      case .failure(let invalid): throw .invalidArgument("transport-security exception \"\(key)\": \(invalid.reason)")
      }
      if let other = seen.updateValue(key, forKey: name.normalized) {
        throw .invalidArgument("transport-security exceptions \"\(other)\" and \"\(key)\" name the same host")
      }
      index.insert(name, includesSubdomains: exception.includesSubdomains, exception)
    }
    return IndexedTransportSecurity(policy: policy, exceptions: index)
  }
}

/// How one host (and, with ``includesSubdomains``, the hosts below it) may fall short of the
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
