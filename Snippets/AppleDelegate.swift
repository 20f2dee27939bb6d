#if canImport(Security)
import CNPinning
import Foundation

final class PinningDelegate: NSObject, URLSessionDelegate, @unchecked Sendable {
  func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    guard let manager = session.cnPinningManager,
      manager.validate(challenge: challenge, completionHandler: completionHandler)
    else {
      completionHandler(.cancelAuthenticationChallenge, nil)  // strict: refuse unpinned hosts
      return
    }
  }
}

let session = URLSession(configuration: .ephemeral, delegate: PinningDelegate(), delegateQueue: nil)
session.cnPinningManager = try CNPinningManager()  // reads Bundle.main's Info.plist
#endif
