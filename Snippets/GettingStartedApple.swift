// snippet.hide
#if canImport(Security)
// snippet.show
import CNPinning
import Foundation

let manager = try CNPinningManager()  // Bundle.main's Info.plist

final class AppSessionDelegate: NSObject, URLSessionDelegate, @unchecked Sendable {
  func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    guard manager.validate(challenge: challenge, completionHandler: completionHandler) else {
      completionHandler(.performDefaultHandling, nil)  // not pinned: your fallback
      return
    }
  }
}
// snippet.hide
#endif
