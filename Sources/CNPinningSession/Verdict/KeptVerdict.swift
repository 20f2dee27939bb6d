import CNPinning
import Foundation

/// A connection's accepted verdict, kept on the connection so that the next request sent on it
/// is not judged from scratch (about 5,600 instructions a request: the pins evaluated again).
///
/// ``ConnectionVerdict/judge(_:under:at:)`` is a function of the connection's facts, which do
/// not change while it is open, the request's policy and the time. So a kept verdict stands for a
/// later request on the same connection and its chain under an equal policy, while the time
/// crosses none of the moments that could change it: the chain's certificates all valid, and
/// the pins of the same `PolicyGeneration` (CNPinning; it moves when an enterprise policy is applied or
/// signed out, a pin expires, a policy's window opens or closes, or a report-only window ends).
/// Any other request is judged afresh, so each request is still judged against the pins in force
/// when it starts. Only acceptances are kept: a refused connection is closed.
package final class KeptVerdict: Sendable {
  /// The judgement as a later request on the connection gets it.
  private let judgement: Judgement
  private let chain: VerifiedChain
  private let policy: RequestPolicy
  private let generation: PolicyGeneration?
  /// The chain's certificates are all valid from `validFrom` to `validUntil`, both included.
  private let validFrom: Date
  private let validUntil: Date

  /// Keeps `judgement`, made on a connection with `facts` under `policy` at `now`; nil when the
  /// judgement refused the connection or had no verified chain to judge.
  package init?(_ judgement: Judgement, of facts: ConnectionFacts, under policy: RequestPolicy, at now: Date) {
    guard judgement.rejection == nil, let chain = facts.verified else { return nil }
    self.judgement = Judgement(
      use: .reused, verifiedChain: judgement.verifiedChain, presentedChain: [], pinning: judgement.pinning, rejection: nil,
      protocolVersion: judgement.protocolVersion, applicationProtocol: judgement.applicationProtocol)
    self.chain = chain
    self.policy = policy
    generation = policy.manager?.policyGeneration(at: now)
    validFrom = chain.certificates.map(\.notValidBefore).max() ?? .distantPast
    validUntil = chain.certificates.map(\.notValidAfter).min() ?? .distantFuture
  }

  /// The kept verdict for a request on the same connection (`use` reused, its verified `chain`
  /// the one judged), under `policy` at `now`; nil when it does not stand and the request must
  /// be judged afresh.
  package func judgement(use: ConnectionFacts.Use, chain: VerifiedChain?, under policy: RequestPolicy, at now: Date)
    -> Judgement?
  {
    guard use == .reused, chain === self.chain, validFrom <= now, now <= validUntil,
      self.policy.judgesAlike(policy), policy.manager?.policyGeneration(at: now) == generation
    else { return nil }
    return judgement
  }
}
