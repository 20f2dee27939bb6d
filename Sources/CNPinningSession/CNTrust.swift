import CNPinning

/// Which certificate authorities a session trusts before pins are even considered.
public enum CNTrust: Sendable, Equatable {
  /// The operating system's trust store (on Debian, the `ca-certificates` bundle).
  case system
  /// Only these anchors, like `SecTrustSetAnchorCertificatesOnly(trust, true)`. An anchor need not
  /// be self-signed: the verified chain ends at the first trusted certificate.
  case customAnchors([CNCertificate])
  /// The system store plus these anchors (a corporate or staging CA).
  case systemAndCustomAnchors([CNCertificate])
}

/// What a session does with a host that has no pins.
public enum CNUnpinnedHostPolicy: Sendable, Equatable {
  /// Connect with normal TLS validation, as Apple's and Android's pinning do.
  case allow
  /// Refuse before connecting: only pinned hosts are reachable.
  case deny
}

/// TLS protocol versions a session can require. TLS 1.0 and 1.1 exist only for transport-security
/// exceptions of legacy hosts.
public enum CNTLSVersion: Int, Sendable, Comparable, CustomStringConvertible {
  /// TLS 1.0 (only for transport-security exceptions).
  case tls10 = 0x0301
  /// TLS 1.1 (only for transport-security exceptions).
  case tls11 = 0x0302
  /// TLS 1.2.
  case tls12 = 0x0303
  /// TLS 1.3.
  case tls13 = 0x0304

  public static func < (lhs: CNTLSVersion, rhs: CNTLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }
  public var description: String { "TLS 1.\(rawValue - 0x0301)" }
}
