#if !CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSessionCore
import Foundation
import Security

/// The delegate of a `bytes(for:delegate:)` stream: its server-trust challenges, and redirects
/// returned to the session (which judges and follows each hop).
final class PinningStreamDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  private let challenges: PinningChallenges

  init(challenges: PinningChallenges) { self.challenges = challenges }

  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    await challenges.answer(challenge)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest? { nil }
}
#endif
