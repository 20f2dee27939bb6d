#if !CNPINNING_LINUX_BACKEND
import Foundation
import Security

/// The only conversion the Apple glue needs: a `SecTrust` evaluated with an SSL policy for the
/// host becomes a `CNTrustEvaluation` holding the chain it built, as `CNCertificate`s.
///
/// The trust's own policies (the SSL policy URLSession set for the host, with any the system
/// added) are kept; an SSL policy for `host` is set only when the trust has none. With
/// `anchors`, they are the only anchors (`anchorsOnly`) or added to the system's; an anchor
/// Security cannot read makes the evaluation fail, never shrinks the set.
package enum CNSecTrust {
  /// Evaluates on the calling thread. Evaluation may fetch revocation data over the network:
  /// from async code (a delegate) use the async form.
  package static func evaluate(
    _ trust: SecTrust, host: String, anchors: [CNCertificate]? = nil, anchorsOnly: Bool = true
  ) -> CNTrustEvaluation {
    if let failure = prepare(trust, host: host, anchors: anchors, anchorsOnly: anchorsOnly) { return failure }
    var error: CFError?
    let trusted = SecTrustEvaluateWithError(trust, &error)
    return result(trust, trusted: trusted, error: error)
  }

  /// Evaluates with `SecTrustEvaluateAsyncWithError` on a queue of its own, so that no thread of
  /// the caller waits for revocation fetches.
  package static func evaluate(
    _ trust: SecTrust, host: String, anchors: [CNCertificate]? = nil, anchorsOnly: Bool = true
  ) async -> CNTrustEvaluation {
    if let failure = prepare(trust, host: host, anchors: anchors, anchorsOnly: anchorsOnly) { return failure }
    // SecTrust is not Sendable; it is handed to Security and only read back in the callback.
    nonisolated(unsafe) let trust = trust
    return await withCheckedContinuation { continuation in
      queue.async {
        // Security requires the call to come from the queue the callback runs on.
        let status = SecTrustEvaluateAsyncWithError(trust, queue) { evaluated, trusted, error in
          continuation.resume(returning: result(evaluated, trusted: trusted, error: error))
        }
        if status != 0 { continuation.resume(returning: .untrusted("Security could not start the evaluation (\(status))")) }
      }
    }
  }

  private static let queue = DispatchQueue(label: "CNSecTrust.evaluation")

  /// Sets the policy (when the trust has none) and the anchors; a failure when an anchor cannot
  /// be read.
  private static func prepare(_ trust: SecTrust, host: String, anchors: [CNCertificate]?, anchorsOnly: Bool)
    -> CNTrustEvaluation?
  {
    var policies: CFArray?
    if SecTrustCopyPolicies(trust, &policies) != 0 || ((policies as? [SecPolicy])?.isEmpty ?? true) {
      SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
    }
    guard let anchors else { return nil }
    var certificates: [SecCertificate] = []
    for anchor in anchors {
      guard let certificate = SecCertificateCreateWithData(nil, Data(anchor.derEncoded) as CFData) else {
        return .untrusted("Security cannot read the anchor \(anchor.displayName)")
      }
      certificates.append(certificate)
    }
    SecTrustSetAnchorCertificates(trust, certificates as CFArray)
    SecTrustSetAnchorCertificatesOnly(trust, anchorsOnly)
    return nil
  }

  /// The evaluated chain as `CNCertificate`s, or why there is none (`CNTrustEvaluation`, shared).
  private static func result(_ trust: SecTrust, trusted: Bool, error: CFError?) -> CNTrustEvaluation {
    CNTrustEvaluation(
      trusted: trusted, errorCode: error.map(CFErrorGetCode),
      errorDescription: error.flatMap { CFErrorCopyDescription($0) as String? },
      chain: (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.map { SecCertificateCopyData($0) as Data })
  }
}
#endif
