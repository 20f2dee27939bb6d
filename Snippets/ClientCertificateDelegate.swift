#if canImport(Security)
import CNPinning
import Foundation

// snippet.hide
let clientIdentity: URLCredential = { fatalError("a placeholder: type-checked, never run") }()
// snippet.show
final class MutualTLSDelegate: NSObject, URLSessionDelegate, @unchecked Sendable {
  func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    // validateServerTrust handles server trust only and leaves every other challenge to you.
    if let manager = session.cnPinningManager,
      manager.validateServerTrust(challenge: challenge, completionHandler: completionHandler)
    {
      return
    }
    switch challenge.protectionSpace.authenticationMethod {
    case NSURLAuthenticationMethodClientCertificate: completionHandler(.useCredential, clientIdentity)
    case NSURLAuthenticationMethodServerTrust: completionHandler(.cancelAuthenticationChallenge, nil)  // unpinned
    default: completionHandler(.performDefaultHandling, nil)
    }
  }
}
#endif
