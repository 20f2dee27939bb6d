// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if os(Linux) && !CNPINNING_APPLE_CHECK
import CNPinning
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// How a delegate-answered challenge (Apple's URLSession) becomes the judgement that observer
/// events and failure reports follow from, as on Linux.
@Suite struct ChallengeJudgementTests {
  static let manager = try! CNPinningManager(configuration: [
    "api.test": CNConfiguration([CNChain([CNChainLink(.exact, "Genuine Root"), CNChainLink(.suffix, ".test")])])
  ])

  @Test func aTrustedChainIsJudgedByThePinsInForce() throws {
    let chain = try TestIdentity.root("Rogue Root").issueLeaf("api.test").chain
    let refusal = CNPinnedSessionError.untrustedChain(host: "api.test", reason: "pins")
    let judgement = Judgement.challenge(host: "api.test", evaluation: .trusted(chain), manager: Self.manager, rejection: refusal)
    #expect(judgement.verifiedChain == chain)
    #expect(judgement.use == .new)
    #expect(judgement.rejection == refusal)
    _ = try #require(judgement.pinning?.rejection, "expected a pin failure, got \(String(describing: judgement.pinning))")
    let genuine = try TestIdentity.root("Genuine Root").issueLeaf("api.test").chain
    let accepted = Judgement.challenge(host: "api.test", evaluation: .trusted(genuine), manager: Self.manager, rejection: nil)
    _ = try #require(
      accepted.pinning?.acceptedMatch, "expected the genuine chain to match, got \(String(describing: accepted.pinning))")
    #expect(Self.manager.report(try #require(judgement.pinning), host: "api.test", port: 443, chain: chain) != nil)
  }

  @Test func anUntrustedOrUnevaluatedTrustCarriesNoChainAndNoPinning() {
    let refusal = CNPinnedSessionError.hostNotPinned(host: "other.test")
    for evaluation in [CNTrustEvaluation.untrusted("expired"), nil] {
      let judgement = Judgement.challenge(host: "other.test", evaluation: evaluation, manager: Self.manager, rejection: refusal)
      #expect(judgement.verifiedChain.isEmpty)
      #expect(judgement.pinning == nil)
      #expect(judgement.rejection == refusal)
    }
  }
}
#endif
