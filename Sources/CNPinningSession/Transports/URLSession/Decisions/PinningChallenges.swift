@_spi(Locking) import CNPinning
import Foundation

/// What a task's delegate needs.
struct TaskSettings: Sendable {
  let host: String
  let manager: CNPinningManager?
  let trust: CNTrust
  let unpinnedHosts: CNUnpinnedHostPolicy
  /// Where the delegate records each challenge it answers (for observer events and reports).
  let judgements: JudgementLog
}

/// How a challenge is answered, with the trust a credential is made from.
enum ChallengeDisposition<Trust> {
  case performDefaultHandling
  case useCredential(Trust)
  case cancel
}

/// Judges a task's server-trust challenges with the shared decision, records each judgement with
/// the URLSession's ``ConnectionVerdicts`` before answering (so that the other tasks on the
/// connection find it), and remembers why it refused one (the task then fails with URLSession's
/// cancellation, which says nothing). Generic over the platform's trust object (`SecTrust` on
/// Apple platforms, where `answer(_:task:)` adapts a challenge); platform-neutral, tested on
/// Linux.
final class PinningChallenges: Sendable {
  let settings: TaskSettings
  private let recorded = Locked<(rejection: CNPinnedSessionError?, verdicts: ConnectionVerdicts?)>((nil, nil))

  init(settings: TaskSettings) { self.settings = settings }

  var rejection: CNPinnedSessionError? { recorded.withLock { $0.rejection } }

  /// Where the URLSession the task runs in keeps its verdicts; set before the task starts.
  func attach(_ verdicts: ConnectionVerdicts) { recorded.withLock { $0.verdicts = verdicts } }

  /// The answer to a challenge for `host` and `port` carrying `serverTrust`; `task`: the task it
  /// came to, nil for a session-level challenge. `evaluate` runs the platform's trust evaluation
  /// with the anchors that apply (nil: the system's; `anchorsOnly`: only them), once, and only
  /// when something will use it. The host is taken in its normal form (`HostName`), as the
  /// transport names a task's host, whatever spelling URLSession's protection space keeps (review
  /// N9); a refusal is remembered by the manager for `refusal(explaining:)` (N7).
  func answer<Trust>(
    authenticationMethod: String, host spelled: String, port: Int, serverTrust: Trust?, task: Int?,
    evaluate: (Trust, _ anchors: [CNCertificate]?, _ anchorsOnly: Bool) async -> CNTrustEvaluation
  ) async -> ChallengeDisposition<Trust> {
    let host = (try? HostName.parseChallengeHost(spelled).get())?.normalized ?? spelled
    let disposition = await judge(
      authenticationMethod: authenticationMethod, host: host, port: port, serverTrust: serverTrust, task: task,
      evaluate: evaluate)
    if case .cancel = disposition, let refusal = rejection {
      settings.manager?.recordRefusal(
        host: host, port: port, pinFailure: refusal.pinningFailure, reason: refusal.reason ?? "\(refusal)")
    }
    return disposition
  }

  private func judge<Trust>(
    authenticationMethod: String, host: String, port: Int, serverTrust: Trust?, task: Int?,
    evaluate: (Trust, _ anchors: [CNCertificate]?, _ anchorsOnly: Bool) async -> CNTrustEvaluation
  ) async -> ChallengeDisposition<Trust> {
    let route = Judgement.route(
      authenticationMethod: authenticationMethod, hasTrust: serverTrust != nil, host: host, manager: settings.manager,
      trust: settings.trust, unpinnedHosts: settings.unpinnedHosts)
    let trust: Trust
    let needsEvaluation: Bool
    switch (route, serverTrust) {
    case (.judge(let evaluating), let serverTrust?): (trust, needsEvaluation) = (serverTrust, evaluating)
    case (.refuse(let refusal), _):
      recorded.withLock { $0.rejection = refusal }
      return .cancel
    default: return .performDefaultHandling
    }
    let anchors = settings.trust.anchors
    let evaluation = needsEvaluation ? await evaluate(trust, anchors?.certificates, anchors?.only ?? true) : nil
    let (answer, judgement) = Judgement.challenge(
      host: host, manager: settings.manager, trust: settings.trust, unpinnedHosts: settings.unpinnedHosts,
      evaluation: evaluation)
    let verdicts = recorded.withLock { state -> ConnectionVerdicts? in
      if let rejection = judgement.rejection { state.rejection = rejection }
      return state.verdicts
    }
    // Recorded where it is made, before the disposition goes back.
    if let task { verdicts?.challenged(judgement, task: task, host: host, port: port) }
    settings.judgements.append(judgement)
    switch answer {
    case .performDefaultHandling: return .performDefaultHandling
    case .useCredential: return .useCredential(trust)
    case .cancel: return .cancel
    }
  }
}

extension CNTrust {
  /// The anchors a platform trust evaluation applies, and whether only they count; nil under the
  /// system's trust.
  var anchors: (certificates: [CNCertificate], only: Bool)? {
    switch self {
    case .system: return nil
    case .customAnchors(let anchors): return (anchors, true)
    case .systemAndCustomAnchors(let anchors): return (anchors, false)
    }
  }
}
