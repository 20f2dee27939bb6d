#if !os(Linux) || CNPINNING_APPLE_CHECK
  import Foundation
  import Security

  /// The only conversion the Apple glue needs: a `SecTrust` evaluated with an SSL policy for the
  /// host becomes a `CNTrustEvaluation` holding the chain it built, as `CNCertificate`s.
  public enum CNSecTrust {
    /// Evaluates `trust` for `host`. The trust's own policies (the SSL policy URLSession set for
    /// the host, with any the system added) are kept; an SSL policy for `host` is set only when
    /// the trust has none. With `anchors`, they are the only anchors (`anchorsOnly`) or added to
    /// the system's; an anchor Security cannot read makes the evaluation fail, never shrinks the set.
    public static func evaluate(
      _ trust: SecTrust, host: String, anchors: [CNCertificate]? = nil, anchorsOnly: Bool = true
    ) -> CNTrustEvaluation {
      var policies: CFArray?
      if SecTrustCopyPolicies(trust, &policies) != 0 || ((policies as? [SecPolicy])?.isEmpty ?? true) {
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
      }
      if let anchors {
        var certificates: [SecCertificate] = []
        for anchor in anchors {
          guard let certificate = SecCertificateCreateWithData(nil, Data(anchor.derEncoded) as CFData) else {
            return .untrusted("Security cannot read the anchor \"\(anchor.subjectCommonNames.last ?? "without a CN")\"")
          }
          certificates.append(certificate)
        }
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
