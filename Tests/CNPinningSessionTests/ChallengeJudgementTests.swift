// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
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

  /// The whole answer a task delegate gives (issue 53, item 3: shared, where it was Apple-only):
  /// evaluated once and only when needed, with the anchors that apply; each judgement recorded
  /// with the URLSession's verdicts for its task before the answer goes back; a refusal
  /// remembered as the task's outcome; custom anchors answered with a credential from the trust.
  @Test func aDelegatesAnswerEvaluatesOnceRecordsItsVerdictAndRemembersARefusal() async throws {
    let genuine = try TestIdentity.root("Genuine Root").issueLeaf("api.test").chain
    let rogue = try TestIdentity.root("Rogue Root").issueLeaf("api.test").chain
    struct Trust: Equatable { let name: String }
    func challenges(_ trust: CNTrust = .system) -> (PinningChallenges, JudgementLog, ConnectionVerdicts) {
      let log = JudgementLog()
      let challenges = PinningChallenges(
        settings: TaskSettings(host: "api.test", manager: Self.manager, trust: trust, unpinnedHosts: .allow, judgements: log))
      let verdicts = ConnectionVerdicts()
      challenges.attach(verdicts)
      return (challenges, log, verdicts)
    }
    let evaluations = Locked<[(String, [CNCertificate]?, Bool)]>([])
    func answer(
      _ challenges: PinningChallenges, host: String = "api.test",
      method: String = CNPinningManager.serverTrustAuthenticationMethod,
      trust: Trust? = Trust(name: "t"), task: Int? = 1, chain: [CNCertificate]
    ) async -> ChallengeDisposition<Trust> {
      await challenges.answer(authenticationMethod: method, host: host, port: 443, serverTrust: trust, task: task) {
        trust, anchors, only in
        evaluations.withLock { $0.append((trust.name, anchors, only)) }
        return .trusted(chain)
      }
    }
    // The genuine chain: default handling, one evaluation, the verdict recorded for task 1.
    let (accepting, log, verdicts) = challenges()
    guard case .performDefaultHandling = await answer(accepting, chain: genuine) else {
      Issue.record("the genuine chain must be accepted")
      return
    }
    #expect(evaluations.withLock { $0.count } == 1 && accepting.rejection == nil)
    #expect(log.all.count == 1 && verdicts.counts.running == 1)
    // Not server trust, or an unpinned host under the system's trust: nothing evaluated.
    guard case .performDefaultHandling = await answer(accepting, method: "NSURLAuthenticationMethodNTLM", chain: rogue),
      case .performDefaultHandling = await answer(accepting, host: "other.test", chain: rogue)
    else {
      Issue.record("other challenges and unpinned hosts are left to the system")
      return
    }
    #expect(evaluations.withLock { $0.count } == 1)
    // The rogue chain: cancelled, and the refusal is the task's outcome.
    let (refusing, _, _) = challenges()
    guard case .cancel = await answer(refusing, chain: rogue) else {
      Issue.record("the rogue chain must be refused")
      return
    }
    #expect(refusing.rejection?.code == .pinMismatch)
    // No trust object for a pinned host: refused before anything is evaluated.
    let (empty, _, _) = challenges()
    guard case .cancel = await answer(empty, trust: nil, chain: genuine) else {
      Issue.record("a challenge without trust for a pinned host must be refused")
      return
    }
    #expect(empty.rejection?.code == .untrustedChain && evaluations.withLock { $0.count } == 2)
    // Custom anchors: evaluated with them only, and answered with a credential from the trust.
    let anchor = genuine.last!
    let (anchored, _, _) = challenges(.customAnchors([anchor]))
    guard case .useCredential(let trust) = await answer(anchored, trust: Trust(name: "anchored"), chain: genuine) else {
      Issue.record("custom anchors must be answered with a credential")
      return
    }
    #expect(trust == Trust(name: "anchored"))
    let last = try #require(evaluations.withLock { $0.last })
    #expect(last.0 == "anchored" && last.1 == [anchor] && last.2)
  }

  /// Review N9 and N7: a challenge whose protection space spells the host otherwise (upper
  /// case, a trailing dot) records its verdict under the host as the transport names it, so a
  /// stream's head on that connection finds it (before, it was refused); and a refusal through
  /// the shared delegates (`URLSession.cnPinned`'s and the transport's) is remembered for
  /// `refusal(explaining:)`, under the same key a zone-scoped address is looked up by (before,
  /// nothing was remembered there, and a zone-scoped host was never matched).
  @Test func aChallengeIsKeptUnderItsHostsNormalFormAndARefusalIsRemembered() async throws {
    let genuine = try TestIdentity.root("Genuine Root").issueLeaf("api.test").chain
    let rogue = try TestIdentity.root("Rogue Root").issueLeaf("api.test").chain
    let verdicts = ConnectionVerdicts()
    func answer(_ host: String, manager: CNPinningManager = Self.manager, chain: [CNCertificate]) async -> Bool {
      let challenges = PinningChallenges(
        settings: TaskSettings(host: host, manager: manager, trust: .system, unpinnedHosts: .allow, judgements: JudgementLog()))
      challenges.attach(verdicts)
      let disposition = await challenges.answer(
        authenticationMethod: CNPinningManager.serverTrustAuthenticationMethod, host: host, port: 443, serverTrust: 1,
        task: 1
      ) { _, _, _ in .trusted(chain) }
      if case .cancel = disposition { return false }
      return true
    }
    #expect(await answer("API.Test.", chain: genuine))
    let head = verdicts.complete(
      task: 2, host: "api.test", port: 443, manager: Self.manager, unpinnedHosts: .allow, facts: nil, mustBeJudged: true,
      final: false)
    #expect(head.refusal == nil, "\(head)")

    #expect(await answer("API.Test.", chain: rogue) == false)
    let cancelled = URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://api.test/")!])
    #expect(Self.manager.refusal(explaining: cancelled)?.pinFailure != nil)

    let address = try CNPinningManager(configuration: [
      "fe80::1": CNConfiguration([CNChain([CNChainLink(.exact, "Genuine Root"), CNChainLink(.suffix, ".test")])])
    ])
    #expect(await answer("fe80::1%en0", manager: address, chain: rogue) == false)
    let zoned = URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://[fe80::1%25en0]/")!])
    #expect(address.refusal(explaining: zoned) != nil, "\(String(describing: zoned.failingURL?.host))")
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
