import CNPinning

/// An App Transport Security-like policy for a session, on by default: TLS 1.2 or later; a leaf
/// key of RSA ≥ 2048 or EC ≥ 256 bits; SHA-2 (≥ 256-bit) signatures on every certificate below
/// the anchor; AES-GCM or ChaCha20-Poly1305 with ECDHE (or TLS 1.3) forward secrecy; no plain
/// `http://`. Exceptions relax it per host, like `NSExceptionDomains`.
public struct CNTransportSecurity: Sendable, Equatable {
  /// Whether the rules are applied at all.
  public var isEnabled: Bool
  /// Relaxations by host name; a key with `includesSubdomains` also covers the hosts below it.
  public var exceptions: [String: CNTransportSecurityException]

  /// The rules, on by default, with exceptions keyed by domain.
  public init(isEnabled: Bool = true, exceptions: [String: CNTransportSecurityException] = [:]) {
    self.isEnabled = isEnabled
    self.exceptions = exceptions
  }

  /// No transport-security requirements beyond TLS itself.
  public static var disabled: CNTransportSecurity { CNTransportSecurity(isEnabled: false) }

  /// The policy ready for lookups, or nil when it is off. Throws `invalidArgument` for an
  /// exception whose key is not a host name, rather than ignoring it.
  func indexed() throws(CNPinnedSessionError) -> IndexedTransportSecurity? {
    guard isEnabled else { return nil }
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
    return IndexedTransportSecurity(exceptions: index)
  }
}

/// An enabled transport-security policy with its exceptions indexed by host name, built once per
/// session.
struct IndexedTransportSecurity: Sendable {
  let exceptions: HostIndex<CNTransportSecurityException>

  /// What applies to `host`: the exception that covers it, else the policy's own rules.
  func requirements(for host: HostName) -> (rules: CNTransportSecurityException, isException: Bool) {
    guard let exception = exceptions.lookup(host) else { return (CNTransportSecurityException(), false) }
    return (exception, true)
  }
}

/// How one host (and, with `includesSubdomains`, the hosts below it) may fall short of the
/// policy. The default relaxes nothing.
public struct CNTransportSecurityException: Sendable, Equatable {
  /// Whether the exception also covers the domain's subdomains.
  public var includesSubdomains: Bool
  /// Allows plain `http://` (NSExceptionAllowsInsecureHTTPLoads).
  public var allowsInsecureHTTPLoads: Bool
  /// The lowest TLS version accepted (NSExceptionMinimumTLSVersion).
  public var minimumTLSVersion: CNTLSVersion
  /// When false, ciphers without forward secrecy or AEAD are accepted
  /// (NSExceptionRequiresForwardSecrecy).
  public var requiresForwardSecrecy: Bool
  /// Accepts small keys and SHA-1 signatures.
  public var allowsWeakCertificates: Bool

  /// An exception; each argument relaxes one rule, as the NSExceptionDomains key of the same name.
  public init(
    includesSubdomains: Bool = false, allowsInsecureHTTPLoads: Bool = false, minimumTLSVersion: CNTLSVersion = .tls12,
    requiresForwardSecrecy: Bool = true, allowsWeakCertificates: Bool = false
  ) {
    self.includesSubdomains = includesSubdomains
    self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
    self.minimumTLSVersion = minimumTLSVersion
    self.requiresForwardSecrecy = requiresForwardSecrecy
    self.allowsWeakCertificates = allowsWeakCertificates
  }
}

/// Which transport-security requirement a connection failed, and what it found instead.
public enum CNTransportSecurityViolation: Sendable, Equatable, CustomStringConvertible {
  /// A plain http:// request to a host that needs https.
  case insecureHTTP(host: String)
  /// The TLS version negotiated is below the one required. `found` is nil when the server
  /// offered only versions below `required` (or one older than TLS 1.0).
  case protocolVersion(host: String, required: CNTLSVersion, found: CNTLSVersion?)
  /// The cipher suite lacks forward secrecy or authenticated encryption.
  case cipherSuite(host: String, found: String)
  /// The leaf's key is too small (RSA under 2048 bits, EC under 256).
  case leafKey(host: String, found: String)
  /// A certificate is signed with a weak hash (MD5, SHA-1).
  case signatureHash(host: String, certificate: String, found: String)

  /// The host whose connection broke the rule.
  public var host: String {
    switch self {
    case .insecureHTTP(let host), .protocolVersion(let host, _, _), .cipherSuite(let host, _), .leafKey(let host, _),
      .signatureHash(let host, _, _):
      host
    }
  }

  public var description: String {
    switch self {
    case .insecureHTTP(let host):
      return "\(host): transport security requires https; plain http was requested (add an exception to allow it)"
    case .protocolVersion(let host, let required, let found):
      return "\(host): transport security requires \(required) or later; the server offered "
        + (found.map(\.description) ?? "only versions below \(required)")
    case .cipherSuite(let host, let found):
      return
        "\(host): transport security requires an AES-GCM or ChaCha20-Poly1305 cipher with ECDHE forward secrecy; the server chose \(found)"
    case .leafKey(let host, let found):
      return "\(host): transport security requires a leaf key of RSA ≥ 2048 or EC ≥ 256 bits; the leaf has \(found)"
    case .signatureHash(let host, let certificate, let found):
      return
        "\(host): transport security requires SHA-256 or stronger signatures below the anchor; \(certificate) is signed with \(found)"
    }
  }
}
