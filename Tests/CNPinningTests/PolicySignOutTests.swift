// Uses the OpenSSL test kit, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// A sign-out sticks, and a policy is for one audience (issue 65, item 2): neither the policy
/// signed out of nor any issued before it applies again, whoever serves it and after a relaunch;
/// an app's audience refuses another app's policies signed with the same key.
@Suite struct PolicySignOutTests {
  static let keys = try! PolicyKeyPair(.p256, slot: 48)

  static func manager(audience: String? = nil) throws -> CNPinningManager {
    try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Old Root"), CNChainLink(.exact, "api.test")])])
      ],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: keys.publicKey, audience: audience))
  }

  static func store() -> CNPolicyStore {
    CNPolicyStore(fileURL: FileManager.default.temporaryDirectory.appendingPathComponent("signout-\(UUID().uuidString).json"))
  }

  static let rescue = #""api.test": [[{"type": "exact", "value": "New Root"}, {"type": "exact", "value": "api.test"}]]"#

  @Test func thePolicySignedOutOfIsNotAppliedAgain() throws {
    let manager = try Self.manager()
    let issued = Date().addingTimeInterval(-60).rounded()
    let token = try Self.keys.sign(policyPayload(issuedAt: issued, Self.rescue))
    try manager.applyEnterprisePolicy(with: token)
    manager.signOut()
    #expect(manager.policyHighWaterMark?.signedOut == true)
    let again = #expect(throws: CNPolicyError.self) { try manager.applyEnterprisePolicy(with: token) }
    #expect(again == .issuedBeforeSignOut(signedOut: issued, offered: issued))
    #expect(again?.description.contains("signed out") == true, "\(String(describing: again))")
    // Nor another one issued before the sign-out, still inside its window.
    let sibling = try Self.keys.sign(policyPayload(issuedAt: issued.addingTimeInterval(-1), lifetime: 7200, Self.rescue))
    #expect(throws: CNPolicyError.self) { try manager.applyEnterprisePolicy(with: sibling) }
    #expect(manager.enterprisePolicy == nil)
    // A policy issued after it is a new one.
    try manager.applyEnterprisePolicy(
      with: try Self.keys.sign(policyPayload(issuedAt: issued.addingTimeInterval(1), Self.rescue)))
    #expect(manager.policyHighWaterMark?.signedOut == false)
  }

  /// The store saved while the policy applied keeps the sign-out: the next launch neither
  /// restores the policy nor accepts it again.
  @Test func aSignOutSurvivesARelaunch() throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let token = try Self.keys.sign(policyPayload(Self.rescue))
    let before = try Self.manager()
    try before.applyEnterprisePolicy(with: token)
    try before.saveEnterprisePolicy(to: store)
    before.signOut()

    let after = try Self.manager()
    try after.restoreEnterprisePolicy(from: store)
    #expect(after.enterprisePolicy == nil, "the store brought back the policy signed out of")
    #expect(after.policyHighWaterMark?.signedOut == true)
    #expect(throws: CNPolicyError.self) { try after.applyEnterprisePolicy(with: token) }
  }

  /// A save never lowers the mark on disk: a manager that knows an older mark (it could not
  /// restore, say) writes the file's.
  @Test func aSaveNeverLowersTheMarkOnDisk() throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let newer = try Self.manager()
    let issued = Date().addingTimeInterval(-60).rounded()
    try newer.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issued, Self.rescue)))
    try newer.saveEnterprisePolicy(to: store)
    newer.signOut()

    let stale = try Self.manager()
    try stale.applyEnterprisePolicy(
      with: try Self.keys.sign(policyPayload(issuedAt: issued.addingTimeInterval(-30), Self.rescue)))
    try stale.saveEnterprisePolicy(to: store)
    let kept = try #require(try Self.manager().restoredMark(from: store))
    #expect(kept.issuedAt == issued && kept.signedOut)
    #expect(stale.policyHighWaterMark == kept, "the saving manager takes the higher mark too")
  }

  /// A store that cannot be read now (a FIFO, here; a file under data protection before the
  /// first unlock on a device) is refused at once, never waited on, and never replaced.
  @Test func aStoreThatCannotBeReadIsNeitherWaitedOnNorReplaced() async throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    #expect(mkfifo(store.fileURL.path, 0o600) == 0)
    let restoring = try Self.manager()
    let restore = #expect(throws: CNPolicyError.self) { try restoring.restoreEnterprisePolicy(from: store) }
    #expect(restore?.description.contains("not a regular file") == true, "\(String(describing: restore))")
    // A manager with a policy (applied before it first used the store) does not replace it.
    let manager = try Self.manager()
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(Self.rescue)))
    let save = #expect(throws: CNPolicyError.self) { try manager.saveEnterprisePolicy(to: store) }
    #expect(save?.description.contains("not replaced") == true, "\(String(describing: save))")
    var status = stat()
    #expect(stat(store.fileURL.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
  }

  /// The Apple review's N8: a store that cannot be read at launch (before the first unlock) left
  /// the mark unset, and a rescue fetch could then apply the policy signed out of. Now no policy
  /// applies until a restore reads the store.
  @Test func noPolicyAppliesWhileTheMarkIsUnknown() throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let token = try Self.keys.sign(policyPayload(Self.rescue))
    let before = try Self.manager()
    try before.applyEnterprisePolicy(with: token)
    try before.saveEnterprisePolicy(to: store)
    before.signOut()
    let kept = try Data(contentsOf: store.fileURL)

    // The next launch, with the file unreadable for now (a FIFO in its place).
    try FileManager.default.removeItem(at: store.fileURL)
    #expect(mkfifo(store.fileURL.path, 0o600) == 0)
    let after = try Self.manager()
    #expect(throws: CNPolicyError.self) { try after.restoreEnterprisePolicy(from: store) }
    let refused = #expect(throws: CNPolicyError.self) { try after.applyEnterprisePolicy(with: token) }
    #expect(refused?.code == .policyStoreUnusable && refused?.description.contains("mark is unknown") == true)
    #expect(after.enterprisePolicy == nil)

    // Readable again: the restore reads the sign-out, and the policy stays refused for it.
    try FileManager.default.removeItem(at: store.fileURL)
    try kept.write(to: store.fileURL)
    try after.restoreEnterprisePolicy(from: store)
    #expect(
      throws: CNPolicyError.issuedBeforeSignOut(
        signedOut: after.policyHighWaterMark!.issuedAt, offered: after.policyHighWaterMark!.issuedAt)
    ) {
      try after.applyEnterprisePolicy(with: token)
    }
    try after.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: Date(), Self.rescue)))
  }

  /// A store from before sign-outs were kept reads as no sign-out.
  @Test func aMarkWrittenBeforeSignOutsWereKeptReadsAsNone() throws {
    let mark = try JSONDecoder().decode(
      CNPolicyHighWaterMark.self, from: Data(#"{"issuedAt": 1000, "contentSHA256": "abc"}"#.utf8))
    #expect(mark == CNPolicyHighWaterMark(issuedAt: Date(timeIntervalSinceReferenceDate: 1000), contentSHA256: "abc"))
  }

  /// With an audience, a policy must name it; without one, a policy naming any is another
  /// app's.
  @Test(
    arguments: [
      ("com.example.app", #""aud": "com.example.app","#, true),
      ("com.example.app", #""aud": ["other", "com.example.app"],"#, true),
      ("com.example.app", "", false),
      ("com.example.app", #""aud": "com.example.other","#, false),
      (nil, "", true),
      (nil, #""aud": "com.example.other","#, false),
    ] as [(String?, String, Bool)])
  func aPolicyIsForItsAudience(_ audience: String?, _ claim: String, _ accepted: Bool) throws {
    let manager = try Self.manager(audience: audience)
    let token = try Self.keys.sign(policyPayload(claim + Self.rescue))
    if accepted {
      try manager.applyEnterprisePolicy(with: token)
    } else {
      let error = #expect(throws: CNPolicyError.self) { try manager.applyEnterprisePolicy(with: token) }
      #expect(error?.code == .audienceMismatch)
      #expect(manager.enterprisePolicy == nil)
    }
  }

  @Test func anEmptyAudienceIsRefused() throws {
    let error = #expect(throws: CNConfigurationError.self) {
      _ = try CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey, audience: "")
    }
    #expect(error?.description.contains("audience") == true)
  }

  @Test func anAudienceThatIsNoStringIsRefusedNamingIt() throws {
    let error = #expect(throws: CNPolicyError.self) {
      _ = try CNEnterprisePolicy(
        token: try Self.keys.sign(policyPayload(#""aud": 7, "# + Self.rescue)), key: Self.keys.publicKey)
    }
    #expect(error.map(String.init(describing:))?.contains("aud") == true)
  }
}

extension CNPinningManager {
  /// The mark a store gives a fresh manager.
  func restoredMark(from store: CNPolicyStore) throws -> CNPolicyHighWaterMark? {
    try restoreEnterprisePolicy(from: store)
    return policyHighWaterMark
  }
}
#endif
