import CNPinning

#if CNPINNING_LINUX_BACKEND
import CNPinningCurl
#endif

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

extension CNTrust {
  /// The anchor certificates this trust accepts chains up to, for checks such as
  /// `cnpin lint`: the custom anchors as given, and on Linux the system store as OpenSSL loads
  /// it for a session. Anchors the certificate reader cannot read are left out and counted in
  /// the log. Throws `invalidArgument` when the system store cannot be listed (Apple platforms).
  public func anchorCertificates() throws(CNPinnedSessionError) -> [CNCertificate] {
    switch self {
    case .customAnchors(let anchors): return anchors
    case .system, .systemAndCustomAnchors:
      #if CNPINNING_LINUX_BACKEND
      let system = try TrustStore(.system).certificates()
      let readable = system.compactMap { try? CNCertificate(derEncoded: $0) }
      if readable.count < system.count {
        CNPinningLog.warn(
          "\(system.count - readable.count) of the system's \(system.count) anchor certificates cannot be read and are left out")
      }
      if case .systemAndCustomAnchors(let custom) = self { return readable + custom }
      return readable
      #else
      throw .invalidArgument("the system trust store cannot be listed on this platform; give the anchors as a PEM file")
      #endif
    }
  }
}

/// Which certificate rules beyond OpenSSL's a session applies to each verified chain.
public enum CNCertificateProfile: Sendable, Equatable {
  /// The Web-PKI profile for chains verified against the system's trust store; none with custom
  /// anchors, where a private PKI's leaf CN may be a description rather than a host name. The
  /// default.
  case automatic
  /// The Web-PKI profile whatever the trust, and for the trust anchor too: an anchor the app
  /// gave by every Web-PKI rule for anchors (as pyca/cryptography), a root of the system's store
  /// by the root rules every root of Debian's trust store meets. The strict mode.
  case webPKI
  /// OpenSSL's verification alone.
  case openSSL

  /// How much of a chain verified against `trust` the profile judges; nil: none of it.
  package func scope(under trust: CNTrust) -> WebPKIProfile.Scope? {
    switch self {
    case .webPKI:
      switch trust {
      case .system: return .wholeChain(chosenAnchors: [])
      case .customAnchors(let anchors), .systemAndCustomAnchors(let anchors): return .wholeChain(chosenAnchors: anchors)
      }
    case .openSSL: return nil
    case .automatic:
      if case .system = trust { return .belowAnchor }
      return nil
    }
  }
}
