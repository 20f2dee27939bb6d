@_spi(Locking) import CNPinning
import Foundation

/// How a URLSession task delegate answers a server-trust challenge, as a platform-neutral value.
enum ChallengeAnswer: Sendable, Equatable {
  /// `.performDefaultHandling`: the system checks the connection in full.
  case performDefaultHandling
  /// `.useCredential` with the challenge's trust, to which custom anchors were applied (default
  /// handling would drop them).
  case useCredential
  /// `.cancelAuthenticationChallenge`: the connection is refused.
  case cancel
}

/// What a URLSession task delegate does with a challenge before anything is evaluated.
enum ChallengeRoute: Sendable, Equatable {
  /// Not server trust (HTTP authentication, a client certificate): default handling.
  case notServerTrust
  /// Server trust without a trust object for a host that must be judged: the connection is
  /// refused (issue 53, L6: default handling let it go on, to be refused only after sending).
  case refuse(CNPinnedSessionError)
  /// Server trust without a trust object for a host nobody judges: default handling.
  case leaveToTheSystem
  /// Server trust to judge; `evaluating`: whether the platform's trust evaluation is needed
  /// (pinned hosts, and unpinned ones under custom anchors).
  case judge(evaluating: Bool)
}

/// A server-trust challenge answered by a transport that hands challenges to a delegate (Apple's
/// URLSession), as the same ``Judgement`` the Linux transport makes, so that observer events and
/// failure reports follow from one piece of code on every platform (``ConnectionEffects``, which
/// reports each failure once). Platform-neutral, tested on Linux.
extension Judgement {
  /// The answer to a server-trust challenge for `host`, and the judgement it records.
  /// `evaluation`: the platform's trust result (nil when it was not evaluated: the host is not
  /// pinned and the system's trust applies).
  static func challenge(
    host: String, manager: CNPinningManager?, trust: CNTrust, unpinnedHosts: CNUnpinnedHostPolicy,
    evaluation: CNTrustEvaluation?
  ) -> (answer: ChallengeAnswer, judgement: Judgement) {
    let (decision, pinning, _) =
      manager?.judge(authenticationMethod: CNPinningManager.serverTrustAuthenticationMethod, host: host) { evaluation }
      ?? (.notPinned, nil, [])
    let (answer, rejection) = Self.answer(
      decision, host: host, trust: trust, unpinnedHosts: unpinnedHosts, evaluation: evaluation)
    // As on Linux: a verified chain always carries a pin result (`notPinned` for unpinned hosts,
    // whose expired pins are then reported); an unverified one none.
    guard case .trusted(let verified)? = evaluation, !verified.isEmpty else {
      return (answer, Judgement(use: .new, verifiedChain: [], presentedChain: [], pinning: nil, rejection: rejection))
    }
    return (
      answer,
      Judgement(
        use: .new, verifiedChain: verified, presentedChain: [], pinning: pinning ?? .notPinned, rejection: rejection)
    )
  }

  /// Where a challenge for `host` goes, by its method and whether it carries a trust object.
  static func route(
    authenticationMethod: String, hasTrust: Bool, host: String, manager: CNPinningManager?, trust: CNTrust,
    unpinnedHosts: CNUnpinnedHostPolicy
  ) -> ChallengeRoute {
    guard authenticationMethod == CNPinningManager.serverTrustAuthenticationMethod else { return .notServerTrust }
    guard hasTrust else {
      return mustBeJudged(host: host, manager: manager, trust: trust, unpinnedHosts: unpinnedHosts)
        ? .refuse(.untrustedChain(host: host, reason: "the server-trust challenge carried no trust to judge"))
        : .leaveToTheSystem
    }
    return .judge(evaluating: manager?.configuration(for: host) != nil || trust != .system)
  }

  /// Whether a connection to `host` must be judged here rather than left to the system: the host
  /// is pinned, custom anchors apply, or unpinned hosts are refused.
  static func mustBeJudged(
    host: String, manager: CNPinningManager?, trust: CNTrust, unpinnedHosts: CNUnpinnedHostPolicy
  ) -> Bool {
    manager?.configuration(for: host) != nil || trust != .system || unpinnedHosts.refusal(host: host) != nil
  }

  /// The answer for the shared decision, and why the connection is refused (nil: accepted).
  private static func answer(
    _ decision: CNChallengeDecision, host: String, trust: CNTrust, unpinnedHosts: CNUnpinnedHostPolicy,
    evaluation: CNTrustEvaluation?
  ) -> (ChallengeAnswer, CNPinnedSessionError?) {
    switch decision {
    case .notServerTrust:
      return (.performDefaultHandling, nil)
    case .performDefaultHandling:
      return (trust == .system ? .performDefaultHandling : .useCredential, nil)
    case .notPinned:
      if let refusal = unpinnedHosts.refusal(host: host) { return (.cancel, refusal) }
      if trust == .system { return (.performDefaultHandling, nil) }
      guard case .trusted? = evaluation else {
        return (.cancel, .untrustedChain(host: host, reason: "not trusted by the custom anchors"))
      }
      return (.useCredential, nil)
    case .cancel(.pinMismatch(let failure)):
      return (.cancel, .pinMismatch(failure))
    case .cancel(let rejection):
      return (.cancel, .untrustedChain(host: host, reason: rejection.description))
    }
  }
}

/// The judgements of one request's challenges, collected by its delegate and read by the session
/// after the request, whatever its outcome.
final class JudgementLog: Sendable {
  private let judgements = Locked<[Judgement]>([])

  func append(_ judgement: Judgement) { judgements.withLock { $0.append(judgement) } }

  /// Replaces what was collected (with the judgements completed after the request).
  func replace(with completed: [Judgement]) { judgements.withLock { $0 = completed } }

  var all: [Judgement] { judgements.withLock { $0 } }
}
