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
