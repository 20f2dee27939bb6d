// Uses the OpenSSL test kit, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Key pins survive policies (issue 65, item 1): a policy chain satisfies a host's chain pins
/// only; its key pins still apply along it unless the policy carries its own for the host, or
/// drops them in a signed field.
@Suite struct PolicyKeyPinTests {
  static let keys = try! PolicyKeyPair(.p256, slot: 47)

  /// The CA the app pins by key, and the one a rescue moves api.test to.
  static let genuineRoot = try! TestIdentity.root("Genuine Root")
  static let genuineCA = try! genuineRoot.issueIntermediate("Genuine CA")
  static let newRoot = try! TestIdentity.root("New Root")
  static let newCA = try! newRoot.issueIntermediate("New CA")
  /// A CA that copies the new CA's names with a key of its own (a trusted root that copies names).
  static let copyRoot = try! TestIdentity.root("New Root")
  static let copyCA = try! copyRoot.issueIntermediate("New CA")

  /// api.test pinned by a CN chain and the genuine CA's key (`ca` scope), as the README
  /// recommends against a root that copies names; mail.test by names alone.
  static func manager() throws -> CNPinningManager {
    let chain = try CNChain([
      CNChainLink(.exact, "Genuine Root"), CNChainLink(.exact, "Genuine CA"), CNChainLink(.suffix, ".test"),
    ])
    return try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration(
          chains: [chain], spkiPins: [CNSPKIPin(certificate: genuineCA.certificate, scope: .ca)]),
        "mail.test": CNConfiguration([chain]),
      ],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: keys.publicKey))
  }

  static let newChain =
    #"[[{"type": "exact", "value": "New Root"}, {"type": "exact", "value": "New CA"}, {"type": "suffix", "value": ".test"}]]"#

  /// The rescue's chain accepted the copied CA, whose key the app never pinned, for the whole
  /// window: by names alone.
  @Test func aPolicyChainKeepsTheHostsKeyPins() throws {
    let manager = try Self.manager()
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(policyPayload(#""*": \#(Self.newChain)"#)))
    let moved = try Self.newCA.issueLeaf("api.test").chain
    let failure = try #require(
      manager.evaluate(host: "api.test", chain: moved).rejection, "the policy's chain dropped api.test's key pins")
    #expect(failure.reason == .noMatchingSPKIPin([CNSPKIPin(certificate: Self.genuineCA.certificate, scope: .ca)]))
    // A host pinned by names alone is rescued by names alone, as before.
    #expect(
      manager.evaluate(host: "mail.test", chain: try Self.newCA.issueLeaf("mail.test").chain).acceptedMatch?.source
        == .enterprisePolicy)
  }

  /// The policy's own key pins replace the host's on its route: the new CA's key lets the move
  /// through, a CA copying its names does not get in.
  @Test func aPolicysOwnKeyPinsReplaceTheHosts() throws {
    let manager = try Self.manager()
    let pin = Self.newCA.certificate.spkiSHA256Base64
    try manager.applyEnterprisePolicy(
      with: try Self.keys.sign(
        policyPayload(#""api.test": \#(Self.newChain), "spkiPins": {"api.test": [{"sha256": "\#(pin)", "appliesTo": "ca"}]}"#)))
    let match = try #require(manager.evaluate(host: "api.test", chain: try Self.newCA.issueLeaf("api.test").chain).acceptedMatch)
    #expect(match.source == .enterprisePolicy)
    #expect(match.spkiPin?.sha256Base64 == pin)
    let copied = try #require(manager.evaluate(host: "api.test", chain: try Self.copyCA.issueLeaf("api.test").chain).rejection)
    #expect(copied.reason == .noMatchingSPKIPin([try CNSPKIPin(sha256Base64: pin, scope: .ca)]))
    // The app's own route still takes the app's key pins.
    #expect(
      manager.evaluate(host: "api.test", chain: try Self.genuineCA.issueLeaf("api.test").chain).acceptedMatch?.source == .app)
    #expect(
      manager.enterprisePolicy?.keyPinEffect(forHostAsWritten: "api.test").contains("its own 1 key pin(s) replace") == true)
  }

  /// An inspection proxy re-signs with keys of its own: only a policy that says so in a signed
  /// field gets it past a key-pinned host.
  @Test func droppingKeyPinsIsSignedOrNotDone() throws {
    let manager = try Self.manager()
    try manager.applyEnterprisePolicy(
      with: try Self.keys.sign(policyPayload(#""*": \#(Self.newChain), "dropsKeyPins": ["api.test"]"#)))
    #expect(
      manager.evaluate(host: "api.test", chain: try Self.copyCA.issueLeaf("api.test").chain).acceptedMatch?.source
        == .enterprisePolicy)
    #expect(manager.enterprisePolicy?.dropsKeyPins == ["api.test"])
    #expect(manager.enterprisePolicy?.keyPinEffect(forHostAsWritten: "api.test").contains("DROPPED") == true)
  }

  /// Key pins that would apply to nothing, or a host both given pins and dropped: refused whole,
  /// naming the entry.
  @Test(arguments: [
    (
      #""api.test": \#(newChain), "spkiPins": {"mail.test": [{"sha256": "\#(String(repeating: "A", count: 43))="}]}"#,
      #"spkiPins["mail.test"]"#, "has no chains"
    ),
    (#""api.test": \#(newChain), "dropsKeyPins": ["mail.test"]"#, "dropsKeyPins[0]", "no chains"),
    (
      #""*": \#(newChain), "dropsKeyPins": ["api.test"], "spkiPins": {"api.test": [{"sha256": "\#(String(repeating: "A", count: 43))="}]}"#,
      "dropsKeyPins[0]", "one or the other"
    ),
    (#""*": \#(newChain), "dropsKeyPins": "api.test""#, "dropsKeyPins", "an array"),
    (#""*": \#(newChain), "spkiPins": {"api.test": []}"#, #"spkiPins["api.test"]"#, "no pins"),
  ])
  func keyPinsThatMeanNothingAreRefused(_ members: String, _ path: String, _ words: String) throws {
    let error = #expect(throws: CNPolicyError.self) {
      _ = try CNEnterprisePolicy(token: try Self.keys.sign(policyPayload(members)), key: Self.keys.publicKey)
    }
    let text = error.map(String.init(describing:)) ?? ""
    #expect(text.contains(path) && text.lowercased().contains(words.lowercased()), "\(text)")
  }

  /// What a policy does to key pins is part of its content: the same `iat` with other key pins
  /// is another policy.
  @Test func keyPinsArePartOfThePolicysContent() throws {
    let issued = Date().addingTimeInterval(-60)
    let plain = try CNEnterprisePolicy(
      token: try Self.keys.sign(policyPayload(issuedAt: issued, #""*": \#(Self.newChain)"#)), key: Self.keys.publicKey)
    let dropping = try CNEnterprisePolicy(
      token: try Self.keys.sign(policyPayload(issuedAt: issued, #""*": \#(Self.newChain), "dropsKeyPins": ["*"]"#)),
      key: Self.keys.publicKey)
    #expect(plain.contentSHA256 != dropping.contentSHA256)
    #expect(
      try CNEnterprisePolicy.newerFeatures(
        ofPayload: Data(policyPayload(#""*": \#(Self.newChain), "dropsKeyPins": ["*"]"#).utf8)
      ).contains("dropsKeyPins"))
  }
}
#endif
