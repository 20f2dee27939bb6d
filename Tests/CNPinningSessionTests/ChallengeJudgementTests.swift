// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
@testable import CNPinningSession
@testable import CNPinningCurl
import CNPinningTestKit
import Foundation
import Testing

/// How a delegate-answered challenge (Apple's URLSession) is answered, and becomes the judgement
/// that observer events and failure reports follow from, as on Linux.
@Suite struct ChallengeJudgementTests {
  static let manager = try! CNPinningManager(configuration: [
    "api.test": CNConfiguration([CNChain([CNChainLink(.exact, "Genuine Root"), CNChainLink(.suffix, ".test")])])
  ])

  static func challenge(
    _ host: String = "api.test", manager: CNPinningManager? = manager, trust: CNTrust = .system,
    unpinnedHosts: CNUnpinnedHostPolicy = .allow, evaluation: CNTrustEvaluation?
  ) -> (answer: ChallengeAnswer, judgement: Judgement) {
    Judgement.challenge(host: host, manager: manager, trust: trust, unpinnedHosts: unpinnedHosts, evaluation: evaluation)
  }

  /// Where a delegate sends a challenge before anything is evaluated. A server-trust challenge
  /// without a trust object for a host that must be judged is refused there (review L6: it was
  /// given default handling, and refused only after the request was sent).
  @Test func challengesAreRoutedBeforeAnythingIsEvaluated() {
    let serverTrust = CNPinningManager.serverTrustAuthenticationMethod
    func route(
      _ method: String = serverTrust, hasTrust: Bool = true, _ host: String = "api.test", trust: CNTrust = .system,
      unpinnedHosts: CNUnpinnedHostPolicy = .allow
    ) -> ChallengeRoute {
      Judgement.route(
        authenticationMethod: method, hasTrust: hasTrust, host: host, manager: Self.manager, trust: trust,
        unpinnedHosts: unpinnedHosts)
    }
    #expect(route("NSURLAuthenticationMethodNTLM") == .notServerTrust)
    #expect(route("NSURLAuthenticationMethodClientCertificate", hasTrust: false) == .notServerTrust)
    #expect(route() == .judge(evaluating: true))
    #expect(route("NSURLAuthenticationMethodServerTrust", "other.test") == .judge(evaluating: false))
    #expect(route("NSURLAuthenticationMethodServerTrust", "other.test", trust: .customAnchors([])) == .judge(evaluating: true))
    #expect(route(hasTrust: false, "other.test") == .leaveToTheSystem)
    for refused in [
      route(hasTrust: false), route(hasTrust: false, "other.test", trust: .customAnchors([])),
      route(hasTrust: false, "other.test", unpinnedHosts: .deny),
    ] {
      guard case .refuse(let error) = refused else {
        Issue.record("a challenge without a trust object for a host that must be judged was \(refused)")
        continue
      }
      #expect(error.code == .untrustedChain)
    }
  }

  @Test func aTrustedChainIsJudgedByThePinsInForce() throws {
    let chain = try TestIdentity.root("Rogue Root").issueLeaf("api.test").chain
    let (answer, judgement) = Self.challenge(evaluation: .trusted(chain))
    #expect(answer == .cancel)
    #expect(judgement.verifiedChain == chain)
    #expect(judgement.use == .new)
    guard case .pinMismatch? = judgement.rejection?.kind else {
      Issue.record("expected a pin mismatch, got \(String(describing: judgement.rejection))")
      return
    }
    _ = try #require(judgement.pinning?.rejection, "expected a pin failure, got \(String(describing: judgement.pinning))")
    let genuine = try TestIdentity.root("Genuine Root").issueLeaf("api.test").chain
    let accepted = Self.challenge(evaluation: .trusted(genuine))
    #expect(accepted.answer == .performDefaultHandling && accepted.judgement.rejection == nil)
    _ = try #require(
      accepted.judgement.pinning?.acceptedMatch,
      "expected the genuine chain to match, got \(String(describing: accepted.judgement.pinning))")
    // Under custom anchors the accepted trust is used as the credential (default handling drops them).
    let anchored = Self.challenge(trust: .customAnchors([]), evaluation: .trusted(genuine))
    #expect(anchored.answer == .useCredential)
  }

  @Test func anUntrustedOrUnevaluatedTrustCarriesNoChainAndNoPinning() {
    let untrusted = Self.challenge(evaluation: .untrusted("expired"))
    #expect(untrusted.answer == .cancel && untrusted.judgement.verifiedChain.isEmpty && untrusted.judgement.pinning == nil)
    guard case .untrustedChain? = untrusted.judgement.rejection?.kind else {
      Issue.record("expected an untrusted chain, got \(String(describing: untrusted.judgement.rejection))")
      return
    }
    let refused = Self.challenge("other.test", unpinnedHosts: .deny, evaluation: nil)
    #expect(refused.answer == .cancel && refused.judgement.rejection == .hostNotPinned(host: "other.test"))
    #expect(refused.judgement.verifiedChain.isEmpty && refused.judgement.pinning == nil)
    let unpinned = Self.challenge("other.test", evaluation: nil)
    #expect(unpinned.answer == .performDefaultHandling && unpinned.judgement.rejection == nil)
  }

  /// A pin failure reaches the reporter's handler once: the answer does not report, the
  /// effects that follow the request do (issue 31, item 7: Apple reported each failure twice).
  @Test func aPinFailureIsReportedOnce() async throws {
    let manager = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([CNChain([CNChainLink(.exact, "Genuine Root"), CNChainLink(.suffix, ".test")])])
    ])
    let ports = Locked<[Int]>([])
    let reporter = CNPinningReporter { report in ports.withLock { $0.append(report.port) } }
    let chain = try TestIdentity.root("Rogue Root").issueLeaf("api.test").chain
    let (_, judgement) = Self.challenge(manager: manager, evaluation: .trusted(chain))
    let effects = ConnectionEffects(
      reporter: reporter,
      uploader: ReportUploader(configuration: .init(), makeTransport: CNPinnedSession.platformTransport))
    let target = try RequestTarget(URL(string: "https://api.test/"))
    effects.emit([judgement], host: target.host, port: target.port, hostName: target.hostName, manager: manager, observer: nil)
    // Reports are delivered in order on one queue: a later one, on another port, marks the end.
    _ = manager.decide(
      authenticationMethod: CNPinningManager.serverTrustAuthenticationMethod, host: "api.test", port: 9, reporter: reporter
    ) {
      .trusted(chain)
    }
    #expect(await eventually { ports.withLock { $0.contains(9) } })
    #expect(ports.withLock { $0 } == [443, 9])
  }
}
#endif
