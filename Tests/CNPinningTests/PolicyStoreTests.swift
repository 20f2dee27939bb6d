// Uses the OpenSSL test kit, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The last good enterprise policy and its anti-rollback mark kept on disk (issue 54, item 1):
/// a rescued app stays rescued across launches, and no file on disk can crash a launch or
/// loosen the pins.
@Suite struct PolicyStoreTests {
  static let keys = try! PolicyKeyPair(.p256, slot: 45)

  static func manager() throws -> CNPinningManager {
    try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Old Root"), CNChainLink(.exact, "api.test")])])
      ],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
  }

  static func store() -> CNPolicyStore {
    CNPolicyStore(
      fileURL: FileManager.default.temporaryDirectory.appendingPathComponent("policy-store-\(UUID().uuidString).json"))
  }

  static let rescue = #""api.test": [[{"type": "exact", "value": "New Root"}, {"type": "exact", "value": "api.test"}]]"#

  @Test func aRestartKeepsThePolicyAndItsMark() throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let before = try Self.manager()
    let issued = Date().addingTimeInterval(-60)
    try before.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issued, Self.rescue)))
    try before.saveEnterprisePolicy(to: store)

    let after = try Self.manager()
    try after.restoreEnterprisePolicy(from: store)
    #expect(after.enterprisePolicy == before.enterprisePolicy)
    #expect(after.policyHighWaterMark == before.policyHighWaterMark)
    // The mark came back with it: an older policy is still refused after the restart.
    #expect(throws: CNPolicyError.self) {
      try after.refreshEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issued.addingTimeInterval(-600))))
    }
  }

  @Test func anExpiredPolicyIsDroppedAndItsMarkKept() throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let before = try Self.manager()
    let issued = Date().addingTimeInterval(-7200)
    try before.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(issuedAt: issued, lifetime: 3600)), at: issued)
    try before.saveEnterprisePolicy(to: store)

    let after = try Self.manager()
    try after.restoreEnterprisePolicy(from: store)
    #expect(after.enterprisePolicy == nil)
    #expect(after.policyHighWaterMark == before.policyHighWaterMark)
    let kept = try String(contentsOf: store.fileURL, encoding: .utf8)
    #expect(kept.contains(#""policy":null"#) || !kept.contains(#""policy""#), "\(kept)")
  }

  /// Whatever is on disk, a launch goes on with the app's own pins and a clear error: nothing
  /// crashes, nothing loosens the pins.
  @Test(arguments: [
    ("not JSON", Data("garbage".utf8), "not JSON"),
    ("another format", Data(#"{"format": "other", "policy": null, "highWaterMark": null}"#.utf8), "format"),
    ("a wrong shape", Data(#"{"format": "cnpinning-policy-store-1", "policy": 7}"#.utf8), "not a policy store"),
    ("too large", Data(repeating: 0x20, count: CNPolicyStore.maximumSize + 1), "larger than"),
  ])
  func aFileThatIsNotAStoreIsRefusedNamingWhy(_ name: String, _ contents: Data, _ expected: String) throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    try contents.write(to: store.fileURL)
    let manager = try Self.manager()
    let error = #expect(throws: CNPolicyError.self) { try manager.restoreEnterprisePolicy(from: store) }
    #expect(
      error?.code == .policyStoreUnusable && error?.description.contains(expected) == true,
      "\(name): \(String(describing: error))")
    #expect(manager.enterprisePolicy == nil && manager.policyHighWaterMark == nil)
  }

  /// A policy on disk is verified again: one the app's key does not verify is refused.
  @Test func aStoredPolicyIsVerifiedAgain() throws {
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let other = try PolicyKeyPair(.p256, slot: 46)
    let forged = String(decoding: try other.sign(policyPayload(Self.rescue)), as: UTF8.self)
    try Data(#"{"format": "cnpinning-policy-store-1", "policy": "\#(forged)", "highWaterMark": null}"#.utf8)
      .write(to: store.fileURL)
    let manager = try Self.manager()
    #expect(throws: CNPolicyError.invalidSignature) { try manager.restoreEnterprisePolicy(from: store) }
    #expect(manager.enterprisePolicy == nil)
  }

  @Test func noFileChangesNothing() throws {
    let manager = try Self.manager()
    try manager.restoreEnterprisePolicy(from: Self.store())
    #expect(manager.enterprisePolicy == nil)
  }
}
#endif
