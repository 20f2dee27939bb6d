#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

/// Judges a task's server-trust challenges with the shared decision, records each judgement with
/// the URLSession's `ConnectionVerdicts` before answering (so that the other tasks on the
/// connection find it), and remembers why it refused one (the task then fails with URLSession's
/// cancellation, which says nothing).
final class PinningChallenges: Sendable {
  let settings: TaskSettings
  private let recorded = Locked<(rejection: CNPinnedSessionError?, verdicts: ConnectionVerdicts?)>((nil, nil))

  init(settings: TaskSettings) { self.settings = settings }

  var rejection: CNPinnedSessionError? { recorded.withLock { $0.rejection } }

  /// Where the URLSession the task runs in keeps its verdicts; set before the task starts.
  func attach(_ verdicts: ConnectionVerdicts) { recorded.withLock { $0.verdicts = verdicts } }

  /// `task`: the task the challenge came to; nil for a session-level challenge.
  func answer(_ challenge: URLAuthenticationChallenge, task: URLSessionTask?) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    let space = challenge.protectionSpace
    let route = Judgement.route(
      authenticationMethod: space.authenticationMethod, hasTrust: space.serverTrust != nil, host: space.host,
      manager: settings.manager, trust: settings.trust, unpinnedHosts: settings.unpinnedHosts)
    let trust: SecTrust
    let needsEvaluation: Bool
    switch (route, space.serverTrust) {
    case (.judge(let evaluating), let serverTrust?): (trust, needsEvaluation) = (serverTrust, evaluating)
    case (.refuse(let refusal), _):
      recorded.withLock { $0.rejection = refusal }
      return (.cancelAuthenticationChallenge, nil)
    default: return (.performDefaultHandling, nil)
    }
    // Evaluated once, off the caller's threads (it may fetch revocation data), and only when
    // something will use it.
    let evaluation: CNTrustEvaluation? = needsEvaluation ? await evaluate(trust, host: space.host) : nil
    let (answer, judgement) = Judgement.challenge(
      host: space.host, manager: settings.manager, trust: settings.trust, unpinnedHosts: settings.unpinnedHosts,
      evaluation: evaluation)
    let verdicts = recorded.withLock { state -> ConnectionVerdicts? in
      if let rejection = judgement.rejection { state.rejection = rejection }
      return state.verdicts
    }
    // Recorded where it is made, before the disposition goes back.
    if let task { verdicts?.challenged(judgement, task: task.taskIdentifier, host: space.host, port: space.port) }
    settings.judgements.append(judgement)
    switch answer {
    case .performDefaultHandling: return (.performDefaultHandling, nil)
    case .useCredential: return (.useCredential, URLCredential(trust: trust))
    case .cancel: return (.cancelAuthenticationChallenge, nil)
    }
  }

  private func evaluate(_ trust: SecTrust, host: String) async -> CNTrustEvaluation {
    switch settings.trust {
    case .system: return await CNSecTrust.evaluate(trust, host: host)
    case .customAnchors(let anchors): return await CNSecTrust.evaluate(trust, host: host, anchors: anchors, anchorsOnly: true)
    case .systemAndCustomAnchors(let anchors):
      return await CNSecTrust.evaluate(trust, host: host, anchors: anchors, anchorsOnly: false)
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
