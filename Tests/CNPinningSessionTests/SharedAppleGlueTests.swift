// Uses the OpenSSL test kit, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// What the Apple-only glue decided and now hands to shared code (issue 66, item 4: the decision
/// lines left there, counted by the broad rule, went from 35 to 19): each decision here, on Linux.
@Suite struct SharedAppleGlueTests {
  /// `CNSecTrust`'s reason from Security's error: its code and its text, either missing.
  @Test func aPlatformRefusalSaysSecuritysCodeAndText() {
    #expect(
      CNTrustEvaluation(trusted: false, errorCode: -67_843, errorDescription: "not trusted", chain: nil)
        == .untrusted("-67843 not trusted"))
    #expect(CNTrustEvaluation(trusted: false, errorCode: -67_843, errorDescription: nil, chain: nil) == .untrusted("-67843"))
    #expect(
      CNTrustEvaluation(trusted: false, errorCode: nil, errorDescription: nil, chain: nil)
        == .untrusted("the chain is not trusted"))
  }

  /// `CNPolicySigningKey(secKey:)`'s export failure, with and without Security's reason.
  @Test func aKeyThatCannotBeExportedSaysWhy() {
    #expect(CNPolicyError.keyNotExported(nil) == .malformedKey("Security cannot export the key: no reason given"))
    #expect(CNPolicyError.keyNotExported("-50") == .malformedKey("Security cannot export the key: -50"))
  }

  /// An app without an Info.plist is refused as one with an empty Info.plist is, saying so.
  @Test func noInfoPlistIsSaidToBeMissing() {
    #expect(throws: CNConfigurationError.self) { try CNPinningDocument.mainBundle(nil) }
    do {
      _ = try CNPinningDocument.mainBundle(nil)
    } catch {
      #expect("\(error)".contains("the main bundle has no Info.plist"))
    }
  }

  /// The revision tracker kept with a URLSession: one, however many callers attach at once.
  @Test(.tags(.concurrency)) func oneRevisionTrackerIsKeptWhoeverAttachesIt() async {
    let kept = Locked<PinsRevisionTracker?>(nil)
    let trackers = await withTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<50 {
        group.addTask {
          ObjectIdentifier(
            PinsRevisionTracker.kept(read: { kept.withLock { $0 } }, attach: { tracker in kept.withLock { $0 = tracker } }))
        }
      }
      return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    #expect(trackers.count >= 1)
    // Every later caller gets the one kept.
    let last = PinsRevisionTracker.kept(read: { kept.withLock { $0 } }, attach: { _ in Issue.record("attached again") })
    #expect(kept.withLock { $0 } === last)
  }

  /// A session-level challenge's judgements reach the reporter, the host read as a challenge
  /// names it (`URLSession.cnPinned`'s delegate), whatever spelling URLSession's protection space
  /// keeps.
  @Test func aSessionLevelChallengeIsReported() async throws {
    let rogue = try TestIdentity.root("Rogue Root").issueLeaf("api.test").chain
    let (_, judgement) = Judgement.challenge(
      host: "api.test", manager: ChallengeJudgementTests.manager, trust: .system, unpinnedHosts: .allow,
      evaluation: .trusted(rogue))
    let reports = Locked<[CNPinningFailureReport]>([])
    var configuration = CNPinnedSessionConfiguration()
    configuration.failureReporter = CNPinningReporter { report in reports.withLock { $0.append(report) } }
    let effects = ConnectionEffects(
      configuration: configuration, manager: ChallengeJudgementTests.manager, makeTransport: CNPinnedSession.platformTransport)
    effects.emit([judgement], challengeHost: "API.Test.", port: 443, manager: ChallengeJudgementTests.manager)
    #expect(await eventually(within: 10) { reports.withLock { $0.map(\.host) } == ["api.test"] })
  }

  /// A certificate printed without a usable CN shows its subjectAltName entries.
  @Test func aCertificateWithoutACNIsNamedByItsSubjectAltNames() throws {
    let pki = try LetsEncryptPKI()
    let (identity, _) = try pki.server("api.test", .generationYECDSA, profile: .tlsServer)
    let leaf = identity.chain[0]
    #expect(leaf.commonName == nil)
    #expect(leaf.displayName == "(no CN; SAN api.test, 127.0.0.1, ::1)")
    #expect(pki.anchors(.generationX)[0].displayName == "ISRG Root X1")
  }
}
#endif
