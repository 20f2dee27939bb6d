// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The decision path the Apple glue calls (`validate(challenge:…)` converts a SecTrust into
/// these values and the decision into a disposition), exercised on Linux with plain values.
@Suite("Challenge decisions")
struct ChallengeDecisionTests {
  static let pki = try! TestPKIChain()
  static let method = CNPinningManager.serverTrustAuthenticationMethod

  struct TestPKIChain {
    let genuine: [CNCertificate]
    let rogue: [CNCertificate]
    init() throws {
      genuine = try TestPKI().leaf.chain
      rogue = try TestIdentity.root("Rogue Root").issueIntermediate("R11").issueLeaf("api.test").chain
    }
  }

  static func manager(enforce: Bool = true) throws -> CNPinningManager {
    try CNPinningManager(configuration: [
      "api.test": CNConfiguration(
        chains: [
          try CNChain([
            CNChainLink(.prefixWithNumber, "Test Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
          ])
        ],
        enforce: enforce)
    ])
  }

  /// Through the seed's delegate pattern a refused connection ends its task with
  /// `URLError.cancelled`, as a cancel does; the manager tells the two apart (issue 54, item 2):
  /// a cancel of a URL whose host and port it refused lately is that refusal, with its reason.
  @Test func aRefusedChallengeExplainsTheCancelledTaskAndNothingElse() throws {
    let manager = try Self.manager()
    func cancelled(_ url: String) -> URLError {
      URLError(.cancelled, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: url)!])
    }
    // Accepted: nothing to explain; the cancel is the user's.
    _ = manager.decide(authenticationMethod: Self.method, host: "api.test", port: 443) { .trusted(Self.pki.genuine) }
    #expect(manager.refusal(explaining: cancelled("https://api.test/a")) == nil)

    // Refused by the pins, and by trust on another port.
    let now = Date()
    _ = manager.decide(authenticationMethod: Self.method, host: "API.test.", port: 443) { .trusted(Self.pki.rogue) }
    _ = manager.decide(authenticationMethod: Self.method, host: "api.test", port: 8443) { .untrusted("expired") }
    let pins = try #require(manager.refusal(explaining: cancelled("https://api.test/a")))
    #expect(pins.host == "api.test" && pins.port == 443)
    #expect(pins.pinFailure?.host == "api.test")
    #expect(pins.reason.hasPrefix("Pin mismatch for api.test"))
    let trust = try #require(manager.refusal(explaining: cancelled("https://api.test:8443/")))
    #expect(trust.pinFailure == nil && trust.reason == "trust evaluation failed: expired")

    // Not explained: another host, another error, a refusal too old.
    #expect(manager.refusal(explaining: cancelled("https://other.test/")) == nil)
    #expect(
      manager.refusal(
        explaining: URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://api.test/")!])) == nil)
    #expect(manager.refusal(explaining: CancellationError()) == nil)
    #expect(manager.refusal(explaining: cancelled("https://api.test/"), at: now + RecentRefusals.lifetime + 1) == nil)
  }

  @Test func otherChallengesAndUnpinnedHostsAreNotEvaluated() throws {
    let manager = try Self.manager()
    var evaluations = 0
    let evaluate = { () -> CNTrustEvaluation? in
      evaluations += 1
      return .trusted(Self.pki.genuine)
    }
    #expect(
      manager.decide(
        authenticationMethod: "NSURLAuthenticationMethodHTTPBasic", host: "api.test", port: 443, evaluateTrust: evaluate)
        == .notServerTrust)
    #expect(
      manager.decide(authenticationMethod: Self.method, host: "other.test", port: 443, evaluateTrust: evaluate) == .notPinned)
    #expect(evaluations == 0)
  }

  @Test func pinnedHostsAreJudgedOnTheEvaluatedChain() throws {
    let manager = try Self.manager()
    guard
      case .performDefaultHandling(.accepted)? = Optional(
        manager.decide(
          authenticationMethod: Self.method, host: "API.test", port: 443, evaluateTrust: { .trusted(Self.pki.genuine) }))
    else {
      Issue.record("the genuine chain should be accepted")
      return
    }
    guard
      case .cancel(.pinMismatch(let failure)) = manager.decide(
        authenticationMethod: Self.method, host: "api.test", port: 443, evaluateTrust: { .trusted(Self.pki.rogue) })
    else {
      Issue.record("the rogue chain should be refused")
      return
    }
    #expect(failure.presentedCommonNames == ["Rogue Root", "R11", "api.test"])
  }

  @Test func failedOrMissingTrustEvaluationIsRefusedWithItsReason() throws {
    let manager = try Self.manager()
    #expect(
      manager.decide(
        authenticationMethod: Self.method, host: "api.test", port: 443, evaluateTrust: { .untrusted("-67602 host name mismatch") }
      ) == .cancel(.untrusted("-67602 host name mismatch")))
    #expect(
      manager.decide(authenticationMethod: Self.method, host: "api.test", port: 443, evaluateTrust: { nil })
        == .cancel(.missingServerTrust))
  }

  @Test func reportOnlyIsAllowedAndReported() throws {
    let manager = try Self.manager(enforce: false)
    let reports = Locked(0)
    let reporter = CNPinningReporter { _ in reports.withLock { $0 += 1 } }
    guard
      case .performDefaultHandling(.reportOnly) = manager.decide(
        authenticationMethod: Self.method, host: "api.test", port: 8443, reporter: reporter,
        evaluateTrust: { .trusted(Self.pki.rogue) })
    else {
      Issue.record("report-only must allow the connection")
      return
    }
    #expect(waitUntil { reports.withLock { $0 } == 1 })
  }

  /// The answer Apple's `validate(serverTrust:host:port:reporter:)` gives (Alamofire's adapter
  /// calls it): the pins' result to go on with, `notPinned` for the caller, or a refusal that
  /// names the pins' failure when it was the pins.
  @Test func aServerTrustWithoutAChallengeGetsThePinsResultOrARefusal() throws {
    let manager = try Self.manager()
    func answer(_ host: String, _ evaluation: CNTrustEvaluation?) throws(CNServerTrustRefusal) -> CNPinningResult {
      try manager.decideSynchronously(
        authenticationMethod: Self.method, host: host, port: 443, reporter: nil, serverTrust: evaluation
      ) { (trust: CNTrustEvaluation) in trust }
      .serverTrustResult(host: host)
    }
    guard case .accepted = try answer("api.test", .trusted(Self.pki.genuine)) else {
      Issue.record("the genuine chain should be accepted")
      return
    }
    #expect(try answer("other.test", .trusted(Self.pki.rogue)) == .notPinned)
    #expect(
      try Self.manager(enforce: false).decideSynchronously(
        authenticationMethod: Self.method, host: "api.test", port: 443, reporter: nil,
        serverTrust: CNTrustEvaluation.trusted(Self.pki.rogue)
      ) { $0 }.serverTrustResult(host: "api.test").allowsConnection)
    do {
      _ = try answer("api.test", .trusted(Self.pki.rogue))
      Issue.record("the rogue chain should be refused")
    } catch {
      #expect(error.host == "api.test")
      #expect(error.pinFailure?.presentedCommonNames == ["Rogue Root", "R11", "api.test"])
      #expect(error.description.hasPrefix("Pin mismatch for api.test"))
    }
    for (evaluation, reason) in [
      (CNTrustEvaluation.untrusted("expired"), "trust evaluation failed: expired"),
      (nil, "the challenge has no server trust to evaluate"),
    ] {
      do {
        _ = try answer("api.test", evaluation)
        Issue.record("\(reason): should be refused")
      } catch {
        #expect(error.host == "api.test" && error.pinFailure == nil && error.description == reason)
      }
    }
  }

  @Test func invalidHostNamesAreRefusedNotTreatedAsUnpinned() throws {
    let manager = try Self.manager()
    guard
      case .cancel(.pinMismatch(let failure)) = manager.decide(
        authenticationMethod: Self.method, host: "bad host", port: 443, evaluateTrust: { .trusted(Self.pki.genuine) })
    else {
      Issue.record("an invalid host must be refused")
      return
    }
    #expect(failure.reason == .invalidHost("contains whitespace"))
  }

  /// A zone-scoped IPv6 literal (a device on the local network, issue 53 L11) is judged by its
  /// address: left to the app when the address is not pinned, as the seed did (it used to be
  /// cancelled as an invalid host), and judged by the address's pins when it is.
  @Test func aZoneScopedIPv6HostIsJudgedByItsAddress() throws {
    let unpinned = try Self.manager()
    for host in ["fe80::1%en0", "[fe80::1%25en0]"] {
      let decision = unpinned.decide(authenticationMethod: Self.method, host: host, port: 443) { .trusted(Self.pki.genuine) }
      #expect(decision == .notPinned, "\(host)")
      #expect(throws: CNPolicyError.notPinned) { try decision.seedAnswer() }
    }
    let pinned = try CNPinningManager(configuration: [
      "fe80::1": CNConfiguration(chains: [
        try CNChain([
          CNChainLink(.prefixWithNumber, "Test Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
        ])
      ])
    ])
    let rogue = pinned.decide(authenticationMethod: Self.method, host: "fe80::1%en0", port: 443) { .trusted(Self.pki.rogue) }
    guard case .cancel(.pinMismatch(let failure)) = rogue else {
      Issue.record("a pinned address behind a zone must be judged by its pins, not \(rogue)")
      return
    }
    #expect(failure.host == "fe80::1")
    let genuine = pinned.decide(authenticationMethod: Self.method, host: "fe80::1%en0", port: 443) { .trusted(Self.pki.genuine) }
    #expect(try genuine.seedAnswer() == .performDefaultHandling)
    // Anything else HostName cannot read stays refused: a name could hide a pinned parent.
    #expect(
      unpinned.decide(authenticationMethod: Self.method, host: "api%.test", port: 443) { .trusted(Self.pki.genuine) }
        != .notPinned)
  }

  /// The seed API's flow around the decision (issue 53, item 3: shared, where it was Apple-only):
  /// the trust is evaluated once, and only for a pinned host's server-trust challenge (a
  /// zone-scoped pinned address included), a refusal is logged, and whether the completion-handler
  /// form handles a challenge follows the seed's contract.
  @Test func theSeedAPIEvaluatesOnlyWhatItJudgesAndHandlesWhatTheSeedHandled() async throws {
    let manager = try Self.manager()
    let zoned = try CNPinningManager(configuration: [
      "fe80::1": CNConfiguration(chains: [
        try CNChain([
          CNChainLink(.prefixWithNumber, "Test Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
        ])
      ])
    ])
    let evaluations = Locked<[String]>([])
    func decide(_ manager: CNPinningManager, _ host: String, method: String = Self.method, trust: String? = "T") async
      -> CNChallengeDecision
    {
      await manager.decide(authenticationMethod: method, host: host, port: 443, reporter: nil, serverTrust: trust) { _ in
        evaluations.withLock { $0.append(host) }
        return .trusted(Self.pki.genuine)
      }
    }
    #expect(await decide(manager, "other.test") == .notPinned)
    #expect(await decide(manager, "api.test", method: "NSURLAuthenticationMethodNTLM") == .notServerTrust)
    #expect(evaluations.withLock { $0 }.isEmpty)
    guard case .performDefaultHandling = await decide(manager, "api.test"),
      case .performDefaultHandling = await decide(zoned, "fe80::1%en0")
    else {
      Issue.record("a pinned host's genuine chain must be accepted")
      return
    }
    #expect(evaluations.withLock { $0 } == ["api.test", "fe80::1%en0"])
    #expect(await decide(manager, "api.test", trust: nil) == .cancel(.missingServerTrust))
    // The synchronous form evaluates lazily, too.
    let sync = manager.decideSynchronously(
      authenticationMethod: Self.method, host: "other.test", port: 443, reporter: nil, serverTrust: "T"
    ) { _ -> CNTrustEvaluation in
      evaluations.withLock { $0.append("sync") }
      return .trusted(Self.pki.genuine)
    }
    #expect(sync == .notPinned && evaluations.withLock { $0.count } == 2)
    // Handled as the seed handled it: an unpinned host is the app's, and so is any other
    // challenge in the strict form.
    var answers: [CNSeedAnswer] = []
    #expect(!CNChallengeDecision.notPinned.handled(strict: false) { answers.append($0) })
    #expect(!CNChallengeDecision.notServerTrust.handled(strict: true) { answers.append($0) })
    #expect(CNChallengeDecision.notServerTrust.handled(strict: false) { answers.append($0) })
    #expect(CNChallengeDecision.cancel(.missingServerTrust).handled(strict: true) { answers.append($0) })
    #expect(answers == [.performDefaultHandling, .cancel])
  }

  /// A platform evaluation read into a value (issue 53, item 3: shared, where it was Apple-only):
  /// trusted only with every certificate of the chain it built readable.
  @Test func aPlatformEvaluationIsTrustedOnlyWithAReadableChain() {
    let ders = Self.pki.genuine.map { Data($0.derEncoded) }
    #expect(CNTrustEvaluation(trusted: true, reason: nil, chain: ders) == .trusted(Self.pki.genuine))
    #expect(CNTrustEvaluation(trusted: false, reason: "-67843 expired", chain: ders) == .untrusted("-67843 expired"))
    #expect(CNTrustEvaluation(trusted: false, reason: nil, chain: nil) == .untrusted("the chain is not trusted"))
    #expect(CNTrustEvaluation(trusted: true, reason: nil, chain: nil) == .untrusted("the evaluated chain is not available"))
    #expect(
      CNTrustEvaluation(trusted: true, reason: nil, chain: [ders[0], Data([0x30, 0x03, 0x02])])
        == .untrusted("a certificate of the evaluated chain cannot be read"))
  }

  /// An unparsable host is refused for what it is, before any trust evaluation: it used to be
  /// refused as "the challenge has no server trust" when the challenge carried none, a reason
  /// that sent the reader to the wrong place.
  @Test func anInvalidHostIsRefusedForItsNameWhateverTheChallengeCarries() throws {
    let manager = try Self.manager()
    var evaluations = 0
    for evaluation in [nil, CNTrustEvaluation.untrusted("-67602"), .trusted(Self.pki.genuine)] {
      let decision = manager.decide(authenticationMethod: Self.method, host: "bad host", port: 443) {
        evaluations += 1
        return evaluation
      }
      guard case .cancel(.pinMismatch(let failure)) = decision else {
        Issue.record("an invalid host must be refused for its name, not \(decision)")
        continue
      }
      #expect(failure.reason == .invalidHost("contains whitespace"))
      #expect(failure.presentedCommonNames.isEmpty)
    }
    #expect(evaluations == 0)
  }

  /// The seed API (`validate`) answers every challenge other than server trust with default
  /// handling, as the seed's code expects: its strict delegate cancels whatever `validate` leaves
  /// to it, and its async pattern catches only `notPinned`, so leaving NTLM, Negotiate or a
  /// server's optional request for a client certificate to the app cancelled or stalled them.
  /// The stricter `validateServerTrust` leaves them to an app that answers them itself.
  @Test func theSeedAPIAnswersOtherChallengesByDefaultAndTheStrictFormLeavesThemToTheApp() throws {
    let manager = try Self.manager()
    for method in [
      "NSURLAuthenticationMethodClientCertificate", "NSURLAuthenticationMethodNTLM", "NSURLAuthenticationMethodNegotiate",
      "NSURLAuthenticationMethodHTTPBasic",
    ] {
      let decision = manager.decide(authenticationMethod: method, host: "api.test", port: 443) { .trusted(Self.pki.genuine) }
      #expect(try decision.seedAnswer() == .performDefaultHandling)
      #expect(throws: CNPolicyError.notServerTrust) { try decision.serverTrustAnswer() }
    }
    let unpinned = manager.decide(authenticationMethod: Self.method, host: "other.test", port: 443) { nil }
    #expect(throws: CNPolicyError.notPinned) { try unpinned.seedAnswer() }
    #expect(throws: CNPolicyError.notPinned) { try unpinned.serverTrustAnswer() }
    let genuine = manager.decide(authenticationMethod: Self.method, host: "api.test", port: 443) { .trusted(Self.pki.genuine) }
    #expect(try genuine.seedAnswer() == .performDefaultHandling)
    let rogue = manager.decide(authenticationMethod: Self.method, host: "api.test", port: 443) { .trusted(Self.pki.rogue) }
    #expect(try rogue.seedAnswer() == .cancel)
    #expect(try genuine.serverTrustAnswer() == .performDefaultHandling && rogue.serverTrustAnswer() == .cancel)
  }
}
#endif
