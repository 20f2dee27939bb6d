// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

@Suite("Enterprise policy over TLS", .tags(.concurrency))
struct EnterpriseSessionTests {
  /// A managed device behind a TLS-inspection proxy: the proxy presents its own chain for
  /// api.test. Rejected by the app's pins until the enterprise policy adds the inspection chain,
  /// and again after sign-out.
  @Test func theInspectionChainIsAcceptedOnlyWhileThePolicyIsApplied() async throws {
    let genuine = try TestPKI()
    let inspection = try TestPKI(root: "Corp Inspection Root", intermediate: "Corp Inspection CA 2")
    let proxy = try LocalTLSServer.start(.init(identity: inspection.leaf) { _ in .text("via the proxy") })
    let signer = try TestPrivateKey.shared(.p256, slot: 50)
    let manager = try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([
          try CNChain([
            CNChainLink(.prefixWithNumber, "Test Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
          ])
        ])
      ],
      enterprise: CNEnterpriseOptions(
        authenticationHost: "auth.test", policySigningKey: try CNPolicySigningKey(pemEncoded: try signer.publicKeyPEM)))
    let session = try CNPinnedSession(
      manager: manager,
      configuration: resolving(to: proxy).trusting(.customAnchors([genuine.root.certificate, inspection.root.certificate])))
    let url = proxy.url("/", hostName: "api.test")

    let before = await error { _ = try await session.data(from: url) }
    _ = try #require(before?.pinFailure, "the inspection chain must be rejected without a policy")
    let now = Int(Date().timeIntervalSince1970)
    let payload =
      #"{"iat": \#(now - 60), "exp": \#(now + 3600), "*": [[{"type": "exact", "value": "Corp Inspection Root"}, {"type": "prefixWithNumber", "value": "Corp Inspection CA "}, {"type": "suffix", "value": ".test"}]]}"#
    let token = try CNPolicySigner(privateKeyPEM: try signer.pemEncoded).sign(payload: Data(payload.utf8))
    try manager.applyEnterprisePolicy(with: Data(token.utf8))
    #expect(String(try await session.data(from: url).0) == "via the proxy")

    manager.signOut()
    let after = await error { _ = try await session.data(from: url) }
    _ = try #require(after?.pinFailure, "after sign-out the inspection chain must be rejected again, even on a reused connection")
    #expect(proxy.requests.count == 1)
  }
}
#endif
