#if !os(Linux) || CNPINNING_APPLE_CHECK
  import Foundation
  import Security

  /// The only conversion the Apple glue needs: a `SecTrust` evaluated with an SSL policy for the
  /// host becomes a `CNTrustEvaluation` holding the chain it built, as `CNCertificate`s.
  public enum CNSecTrust {
    /// Evaluates `trust` for `host` (`SecPolicyCreateSSL`, never a basic X.509 policy). With
    /// `anchors`, they are the only anchors (`anchorsOnly`) or added to the system's.
    public static func evaluate(
      _ trust: SecTrust, host: String, anchors: [CNCertificate]? = nil, anchorsOnly: Bool = true
    ) -> CNTrustEvaluation {
      SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
      if let anchors {
        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, Data($0.derEncoded) as CFData) }
        SecTrustSetAnchorCertificates(trust, certificates as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, anchorsOnly)
      }
      var error: CFError?
      guard SecTrustEvaluateWithError(trust, &error) else {
        let reason = error.map { "\(CFErrorGetCode($0)) \(CFErrorCopyDescription($0) as String? ?? "")" }
        return .untrusted(reason ?? "the chain is not trusted")
      }
      guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate] else {
        return .untrusted("the evaluated chain is not available")
      }
      var certificates: [CNCertificate] = []
      for certificate in chain {
        guard let parsed = try? CNCertificate(derEncoded: SecCertificateCopyData(certificate) as Data) else {
          return .untrusted("a certificate of the evaluated chain cannot be read")
        }
        certificates.append(parsed)
      }
      return .trusted(certificates)
    }
  }
#endif
