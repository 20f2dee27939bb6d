#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

/// A data task's delegate: its body as it arrives (`TaskBodyDelegate`, shared) and its
/// server-trust challenges.
// Unchecked Sendable: adds only an immutable reference to its superclass, whose reason holds.
final class PinningTaskDelegate: TaskBodyDelegate, @unchecked Sendable {
  private let challenges: PinningChallenges

  init(challenges: PinningChallenges, plan: Plan) {
    self.challenges = challenges
    super.init(plan: plan)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    await challenges.answer(challenge, task: task)
  }
}
#endif
