import CNPinning

/// Which certificate rules beyond OpenSSL's a session applies to each verified chain.
public enum CNCertificateProfile: Sendable, Equatable {
  /// The Web-PKI profile for chains verified against the system's trust store; none with custom
  /// anchors, where a private PKI's leaf CN may be a description rather than a host name. The
  /// default.
  case automatic
  /// The Web-PKI profile whatever the trust, and the root rules every root of Debian's trust
  /// store meets for the trust anchor too: the strict mode.
  case webPKI
  /// OpenSSL's verification alone.
  case openSSL

  /// How much of a chain verified against `trust` the profile judges; nil: none of it.
  package func scope(under trust: CNTrust) -> WebPKIProfile.Scope? {
    switch self {
    case .webPKI: return .wholeChain
    case .openSSL: return nil
    case .automatic:
      if case .system = trust { return .belowAnchor }
      return nil
    }
  }
}
