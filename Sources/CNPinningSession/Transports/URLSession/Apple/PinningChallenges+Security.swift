#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

extension PinningChallenges {
  /// Answers `challenge` (`answer(authenticationMethod:…)`, shared) with Security's evaluation;
  /// `task`: the task it came to, nil for a session-level challenge.
  func answer(_ challenge: URLAuthenticationChallenge, task: URLSessionTask?) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    let space = challenge.protectionSpace
    let disposition = await answer(
      authenticationMethod: space.authenticationMethod, host: space.host, port: space.port,
      serverTrust: space.serverTrust, task: task?.taskIdentifier
    ) { trust, anchors, anchorsOnly in
      await CNSecTrust.evaluate(trust, host: space.host, anchors: anchors, anchorsOnly: anchorsOnly)
    }
    switch disposition {
    case .performDefaultHandling: return (.performDefaultHandling, nil)
    case .useCredential(let trust): return (.useCredential, URLCredential(trust: trust))
    case .cancel: return (.cancelAuthenticationChallenge, nil)
    }
  }
}

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
