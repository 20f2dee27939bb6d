import CNPinning
import Foundation

/// A server-trust challenge answered by a transport that hands challenges to a delegate (Apple's
/// URLSession), as the same `Judgement` the Linux transport makes, so that observer events and
/// failure reports follow from one piece of code on every platform. Platform-neutral, tested on
/// Linux.
extension Judgement {
  /// `evaluation`: the trust result (nil when the trust was not evaluated); `rejection`: why the
  /// connection was refused (nil when it was accepted). Challenges come only on new connections.
  static func challenge(
    host: String, evaluation: CNTrustEvaluation?, manager: CNPinningManager?, at date: Date = Date(),
    rejection: CNPinnedSessionError?
  ) -> Judgement {
    guard case .trusted(let chain)? = evaluation, !chain.isEmpty else {
      return Judgement(use: .new, verifiedChain: [], presentedChain: [], pinning: nil, rejection: rejection)
    }
    let pinning = manager?.evaluate(host: host, chain: chain, at: date) ?? .notPinned
    return Judgement(use: .new, verifiedChain: chain, presentedChain: [], pinning: pinning, rejection: rejection)
  }
}

/// The judgements of one request's challenges, collected by its delegate and read by the session
/// after the request, whatever its outcome.
final class JudgementLog: Sendable {
  private let judgements = Locked<[Judgement]>([])

  func append(_ judgement: Judgement) { judgements.withLock { $0.append(judgement) } }

  var all: [Judgement] { judgements.withLock { $0 } }
}
