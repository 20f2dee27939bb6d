import CNPinning

#if CNPINNING_LINUX_BACKEND
import CNPinningCurl
#endif

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
