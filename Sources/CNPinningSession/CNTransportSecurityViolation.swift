import CNPinning

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
