// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// Recovering from a lockout without an app update (issue 54, item 1): api.test's CA switches,
/// the app's pins refuse it; a signed policy served from another host, fetched without the app's
/// pins, lets the next request through, and a restart keeps the rescue.
@Suite("Lockout rescue", .tags(.concurrency))
struct PolicyRescueTests {
  /// The world of one lockout: api.test moved from the pinned CA to a new one; a policy host on
  /// a CA of its own, which the rescue's trust accepts; the policy-signing key the app ships.
  struct World {
    let old = try! TestPKI(root: "Old Root X1", intermediate: "R11")
    let new = try! TestPKI(root: "New Root Y1", intermediate: "E7")
    let policyPKI = try! TestPKI(root: "Storage Root", intermediate: "Storage CA 1", dnsNames: ["policy.test"])
    let signer = try! TestPrivateKey.shared(.p256, slot: 51)
    let api: LocalTLSServer
    let policies: LocalTLSServer
    /// What the policy host serves.
    let served = Locked(Data())

    init() throws {
      let served = served
      api = try LocalTLSServer.start(
        .init(identity: new.leaf) { request in
          request.target == "/pins.jws" ? .init(body: served.withLock { $0 }) : .text("api after the switch")
        })
      policies = try LocalTLSServer.start(.init(identity: policyPKI.leaf) { _ in .init(body: served.withLock { $0 }) })
    }

    func manager() throws -> CNPinningManager {
      try CNPinningManager(
        configuration: [
          "api.test": CNConfiguration([
            try CNChain([
              CNChainLink(.prefixWithNumber, "Old Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
            ])
          ])
        ],
        enterprise: CNEnterpriseOptions(
          authenticationHost: "auth.test", policySigningKey: try CNPolicySigningKey(pemEncoded: try signer.publicKeyPEM)))
    }

    func session(_ manager: CNPinningManager) throws -> CNPinnedSession {
      try CNPinnedSession(
        manager: manager,
        configuration: resolving(to: api).trusting(.customAnchors([old.root.certificate, new.root.certificate])))
    }

    func rescue(_ manager: CNPinningManager, store: CNPolicyStore?) throws -> CNPolicyRescue {
      var configuration = resolving(["policy.test"], to: policies)
      configuration.trust = .customAnchors([policyPKI.root.certificate])
      return try CNPolicyRescue(
        manager: manager, url: policies.url("/pins.jws", hostName: "policy.test"), store: store, configuration: configuration)
    }

    /// A policy adding the new CA's chain for api.test, issued `age` seconds ago, for `lifetime`.
    func policy(age: TimeInterval = 60, lifetime: TimeInterval = 3600, signer: TestPrivateKey? = nil) throws -> Data {
      let issued = Int(Date().timeIntervalSince1970 - age)
      let payload =
        #"{"iat": \#(issued), "exp": \#(issued + Int(lifetime)), "api.test": [[{"type": "prefixWithNumber", "value": "New Root Y"}, {"type": "prefixWithNumber", "value": "E"}, {"type": "exact", "value": "api.test"}]]}"#
      return Data(
        try CNPolicySigner(privateKeyPEM: try (signer ?? self.signer).pemEncoded).sign(payload: Data(payload.utf8)).utf8)
    }

    func stop() {
      api.stop()
      policies.stop()
    }
  }

  static func store() -> CNPolicyStore {
    CNPolicyStore(fileURL: FileManager.default.temporaryDirectory.appendingPathComponent("rescue-\(UUID().uuidString).json"))
  }

  @Test func aLockoutIsRescuedByAPolicyFromAnotherHostAndStaysRescuedAfterARestart() async throws {
    let world = try World()
    defer { world.stop() }
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let manager = try world.manager()
    let session = try world.session(manager)
    let url = world.api.url("/", hostName: "api.test")

    // The CA switch: locked out.
    _ = try #require(await error { _ = try await session.data(from: url) }?.pinFailure, "the new CA is not pinned")
    // The rescue, served by a host the app does not pin, on a CA the app's pins do not name.
    world.served.withLock { $0 = try! world.policy() }
    let applied = try await world.rescue(manager, store: store).fetch()
    #expect(applied?.chains["api.test"]?.count == 1)
    #expect(String(try await session.data(from: url).0) == "api after the switch")
    #expect(try await world.rescue(manager, store: store).fetch() == nil, "the same policy again is nothing new")

    // The next launch: restored from disk before the first request, no fetch.
    let relaunched = try world.manager()
    try relaunched.restoreEnterprisePolicy(from: store)
    #expect(String(try await world.session(relaunched).data(from: url).0) == "api after the switch")
    #expect(world.policies.requests.count == 2)
  }

  /// A sign-out sticks (issue 65, item 2): the rescue URL serving the policy signed out of (or
  /// anyone answering it with a trusted certificate) does not bring it back, and neither does the
  /// store at the next launch.
  @Test func aSignOutSurvivesARescueFetchAndARelaunch() async throws {
    let world = try World()
    defer { world.stop() }
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let manager = try world.manager()
    let session = try world.session(manager)
    let url = world.api.url("/", hostName: "api.test")
    world.served.withLock { $0 = try! world.policy() }
    #expect(try await world.rescue(manager, store: store).fetch() != nil)
    #expect(String(try await session.data(from: url).0) == "api after the switch")

    manager.signOut()
    let refetch = await #expect(throws: CNPolicyError.self) { try await world.rescue(manager, store: store).fetch() }
    #expect(refetch?.code == .issuedBeforeSignOut)
    #expect(manager.enterprisePolicy == nil)
    _ = try #require(await error { _ = try await session.data(from: url) }?.pinFailure, "the sign-out was undone")

    let relaunched = try world.manager()
    try relaunched.restoreEnterprisePolicy(from: store)
    #expect(relaunched.enterprisePolicy == nil, "the store brought back the policy signed out of")
    await #expect(throws: CNPolicyError.self) { try await world.rescue(relaunched, store: store).fetch() }
    #expect(relaunched.enterprisePolicy == nil)
  }

  /// Expired, older, wrongly signed: refused, the pins unchanged, the store untouched.
  @Test func aPolicyTheRulesRefuseChangesNothing() async throws {
    let world = try World()
    defer { world.stop() }
    let store = Self.store()
    defer { try? FileManager.default.removeItem(at: store.fileURL) }
    let manager = try world.manager()
    let rescue = try world.rescue(manager, store: store)

    world.served.withLock { $0 = try! world.policy(age: 7200, lifetime: 3600) }
    await #expect(throws: CNPolicyError.self) { try await rescue.fetch() }
    let stranger = try TestPrivateKey.shared(.p256, slot: 52)
    world.served.withLock { $0 = try! world.policy(signer: stranger) }
    await #expect(throws: CNPolicyError.invalidSignature) { try await rescue.fetch() }
    #expect(manager.enterprisePolicy == nil)
    #expect(!FileManager.default.fileExists(atPath: store.fileURL.path), "nothing refused was kept")

    world.served.withLock { $0 = try! world.policy(age: 60) }
    #expect(try await rescue.fetch() != nil)
    let kept = try Data(contentsOf: store.fileURL)
    world.served.withLock { $0 = try! world.policy(age: 600) }
    let older = await #expect(throws: CNPolicyError.self) { try await rescue.fetch() }
    #expect(older?.code == .olderThanAppliedPolicy)
    #expect(try Data(contentsOf: store.fileURL) == kept)
  }

  /// The policy served by the locked-out host itself: the rescue's fetch ignores the app's pins
  /// (which refuse that host now), so the lockout does not lock out its own rescue.
  @Test func theLockedOutHostCanServeItsOwnRescue() async throws {
    let world = try World()
    defer { world.stop() }
    let manager = try world.manager()
    var configuration = resolving(to: world.api)
    configuration.trust = .customAnchors([world.new.root.certificate])
    let rescue = try CNPolicyRescue(
      manager: manager, url: world.api.url("/pins.jws", hostName: "api.test"), configuration: configuration)
    world.served.withLock { $0 = try! world.policy() }
    #expect(try await rescue.fetch() != nil)
    #expect(
      String(try await world.session(manager).data(from: world.api.url("/", hostName: "api.test")).0) == "api after the switch")
  }

  /// The rescue's connection is judged by normal trust: a policy host whose chain does not verify
  /// is refused before anything is read.
  @Test func thePolicyHostIsTrustedOnlyAsTheConfigurationSays() async throws {
    let world = try World()
    defer { world.stop() }
    let manager = try world.manager()
    var configuration = resolving(["policy.test"], to: world.policies)
    configuration.trust = .customAnchors([world.old.root.certificate])
    let rescue = try CNPolicyRescue(
      manager: manager, url: world.policies.url("/pins.jws", hostName: "policy.test"), configuration: configuration)
    world.served.withLock { $0 = try! world.policy() }
    let failure = await error { try await rescue.fetch() }
    #expect(failure?.code == .untrustedChain, "\(String(describing: failure))")
    #expect(world.policies.requests.isEmpty && manager.enterprisePolicy == nil)
    #expect(throws: CNPinnedSessionError.self) {
      _ = try CNPolicyRescue(manager: manager, url: URL(string: "http://policy.test/pins.jws")!)
    }
  }
}
#endif
