import CNPinning
import Foundation
import Testing

@testable import CNPinningSession
@testable import CNPinningSessionCore

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningSessionLinux
#endif

/// What the Apple transport reports for a hop URLSession did not challenge (issue 31, items 3 and
/// 8: reused connections had no observer event and no TLS or HTTP version, and a connection that
/// URLSession resumed without a challenge would have gone unjudged).
@Suite struct DelegateHopVerdictTests {
  static let accepted = Judgement(use: .new, verifiedChain: [], presentedChain: [], pinning: .notPinned, rejection: nil)
  static let reused = TransactionFacts(isReusedConnection: true, tlsVersion: 0x0304, applicationProtocol: "h2")
  static let fresh = TransactionFacts(isReusedConnection: false, tlsVersion: 0x0304, applicationProtocol: "h2")

  @Test func aChallengedHopKeepsItsJudgementsWithTheVersionsFromItsMetrics() {
    let (judgements, refusal) = DelegateHopVerdict.complete(
      host: "api.test", challenged: [Self.accepted], remembered: nil, facts: Self.fresh, mustBeJudged: true)
    #expect(refusal == nil)
    #expect(judgements.count == 1 && judgements[0].use == .new)
    #expect(judgements[0].protocolVersion == 0x0304 && judgements[0].applicationProtocol == "h2")
  }

  @Test func aReusedConnectionThisSessionJudgedGetsAReusedEvent() {
    for facts in [Self.reused, nil] {
      let (judgements, refusal) = DelegateHopVerdict.complete(
        host: "api.test", challenged: [], remembered: Self.accepted, facts: facts, mustBeJudged: true)
      #expect(refusal == nil)
      #expect(judgements.count == 1 && judgements[0].use == .reused && judgements[0].pinning == .notPinned)
    }
  }

  /// Fail closed: a new connection with no challenge (a resumed TLS session), or any connection
  /// this URLSession never judged for the host, is refused when the host must be judged.
  @Test func anUnjudgedConnectionToAHostThatMustBeJudgedIsRefused() {
    for (remembered, facts) in [(Self.accepted, Self.fresh), (nil, Self.reused), (nil, nil)] {
      let (judgements, refusal) = DelegateHopVerdict.complete(
        host: "api.test", challenged: [], remembered: remembered, facts: facts, mustBeJudged: true)
      guard case .untrustedChain(host: "api.test", _)? = refusal?.kind else {
        Issue.record("expected a refusal, got \(String(describing: refusal))")
        continue
      }
      #expect(judgements.count == 1 && judgements[0].rejection == refusal)
    }
    let (unpinned, refusal) = DelegateHopVerdict.complete(
      host: "other.test", challenged: [], remembered: nil, facts: Self.reused, mustBeJudged: false)
    #expect(refusal == nil && unpinned.count == 1 && unpinned[0].use == .reused)
  }
}
