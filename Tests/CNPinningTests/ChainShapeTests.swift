// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// One chain for every shape a store may verify: links marked `mayBeAnchor` stand for exactly the
/// tails that start at them, and nothing looser.
@Suite("Chain shapes")
struct ChainShapeTests {
  static let pki = try! LetsEncryptPKI()

  /// Let's Encrypt's ECDSA chain in one chain: ISRG Root X1 → ISRG Root X2 → Root YE → YEn → leaf.
  static let ecdsa = try! CNChain([
    CNChainLink(.exact, "ISRG Root X1"),
    CNChainLink(.exact, "ISRG Root X2", mayBeAnchor: true),
    CNChainLink(.exact, "Root YE", mayBeAnchor: true),
    CNChainLink(.prefixWithNumber, "YE"),
    CNChainLink(.subjectAltName, "api.example.com"),
  ])

  static let manager = try! CNPinningManager(configuration: [
    "api.example.com": CNConfiguration([ecdsa])
  ])

  /// The verified chains (leaf first) a client builds from Let's Encrypt's default ECDSA chain.
  static func verified(_ store: LetsEncryptPKI.Store, leaf: TestIdentity? = nil, intermediate: TestIdentity = pki.ye1)
    throws -> [CNCertificate]
  {
    let leaf = try leaf ?? intermediate.issueLeaf("api.example.com", dnsNames: ["api.example.com"])
    switch store {
    case .rootX1Only:
      return [
        leaf.certificate, intermediate.certificate, pki.rootYECrossSigned.certificate, pki.rootX2CrossSigned.certificate,
        pki.rootX1.certificate,
      ]
    case .generationX:
      return [leaf.certificate, intermediate.certificate, pki.rootYECrossSigned.certificate, pki.rootX2.certificate]
    case .generationY:
      return [leaf.certificate, intermediate.certificate, pki.rootYE.certificate]
    }
  }

  @Test func theShapesAreTheChainAndEachTailFromALinkThatMayBeTheAnchor() throws {
    #expect(
      Self.ecdsa.shapes.map { $0.links.map(\.value) } == [
        ["ISRG Root X1", "ISRG Root X2", "Root YE", "YE", "api.example.com"],
        ["ISRG Root X2", "Root YE", "YE", "api.example.com"],
        ["Root YE", "YE", "api.example.com"],
      ])
    #expect(Self.ecdsa.shapeLengths == [5, 4, 3])
    let plain = try CNChain([CNChainLink(.exact, "Root YR"), CNChainLink(.prefixWithNumber, "YR"), CNChainLink(.exact, "a")])
    #expect(plain.shapes == [plain])
  }

  @Test(arguments: LetsEncryptPKI.Store.allCases)
  func oneChainCoversEveryStore(_ store: LetsEncryptPKI.Store) throws {
    let result = Self.manager.evaluate(host: "api.example.com", chain: try Self.verified(store))
    let match = try #require(result.acceptedMatch, "\(store): \(result)")
    #expect(match.chainIndex == 0)
    #expect(match.chain == Self.ecdsa)
    #expect(match.shape?.links.count == (store == .rootX1Only ? 5 : store == .generationX ? 4 : 3))
    #expect(
      match.shape?.links.first?.value
        == (store == .rootX1Only ? "ISRG Root X1" : store == .generationX ? "ISRG Root X2" : "Root YE"))
  }

  @Test func aShapeThatStartsAtALinkNotMarkedIsRefused() throws {
    // YE1 is not marked: a chain anchored at the intermediate is none of the shapes.
    let anchoredAtIntermediate = Array(try Self.verified(.generationY).prefix(2))
    let failure = try #require(Self.manager.evaluate(host: "api.example.com", chain: anchoredAtIntermediate).failure)
    #expect(failure.reason == .noMatchingChain([.certificateCount(expected: [5, 4, 3], actual: 2)]))
    #expect(failure.description.contains("expected 5, 4 or 3 certificates, the verified chain has 2"), "\(failure)")
  }

  @Test func everyShapeKeepsTheSeedsRuleOfOneLinkPerCertificate() throws {
    // A store-made chain with one certificate more than a shape, or less, is refused.
    var longer = try Self.verified(.generationY)
    longer.append(Self.pki.rootX1.certificate)
    #expect(Self.manager.evaluate(host: "api.example.com", chain: longer).failure != nil)
    let root = try CNChain([
      CNChainLink(.exact, "ISRG Root X1"), CNChainLink(.exact, "Root YE", mayBeAnchor: true),
      CNChainLink(.prefixWithNumber, "YE"), CNChainLink(.subjectAltName, "api.example.com"),
    ])
    // Root YE cross-signed straight by X1 is not what the store verified: the four-certificate
    // chain through X2 does not match a four-link chain whose root is X1.
    let manager = try CNPinningManager(configuration: ["api.example.com": CNConfiguration([root])])
    let failure = try #require(manager.evaluate(host: "api.example.com", chain: try Self.verified(.generationX)).failure)
    #expect(
      failure.description.contains(
        #"certificate 0 (root → leaf) has CN "ISRG Root X2", which does not match exact "ISRG Root X1""#),
      "\(failure)")
  }

  @Test func aRogueIntermediateIsRefusedInEveryShapeNamingTheShapeCompared() throws {
    let rogue = try Self.pki.rootYE.issueIntermediate("YE1 Evil")
    for store in LetsEncryptPKI.Store.allCases {
      let chain = try Self.verified(store, intermediate: rogue)
      let failure = try #require(Self.manager.evaluate(host: "api.example.com", chain: chain).failure, "\(store)")
      #expect(failure.description.contains(#"has CN "YE1 Evil", which does not match prefixWithNumber "YE""#), "\(failure)")
      if store == .generationY {
        #expect(failure.description.contains(#"as its shape of 3 from "Root YE""#), "\(failure)")
      }
    }
  }

  @Test func theLastLinkCannotBeTheAnchor() throws {
    #expect(throws: CNConfigurationError.self) {
      try CNChain([CNChainLink(.exact, "Root"), CNChainLink(.exact, "api.example.com", mayBeAnchor: true)])
    }
    let json = jsonConfiguration(
      #"""
      {"includesSubdomains": false,
      "chainSet": [[{"type": "exact", "value": "Root"}, {"type": "exact", "value": "api.example.com", "mayBeAnchor": true}]]}
      """#)
    let found = problems(json: json)
    #expect(found.map(\.path) == [#"PinnedDomains["api.example.com"].chainSet[0][1].mayBeAnchor"#])
    #expect(found.first?.code == .misplacedLink)
    #expect(found.first?.message.contains("never the trust anchor") == true)
  }

  @Test func mayBeAnchorMustBeABoolean() throws {
    let json = jsonConfiguration(
      #"""
      {"includesSubdomains": false,
      "chainSet": [[{"type": "exact", "value": "Root", "mayBeAnchor": "yes"}, {"type": "exact", "value": "a.test"}]]}
      """#)
    #expect(
      problems(json: json).map(\.description) == [
        #"PinnedDomains["api.example.com"].chainSet[0][0].mayBeAnchor: expected a boolean, found a string"#
      ])
  }

  @Test func mayBeAnchorRoundTripsThroughEveryForm() throws {
    let configuration = try CNConfiguration([Self.ecdsa])
    let document = try CNPinningDocument(configuration: ["api.example.com": configuration])
    for format in CNPinningDocument.Format.allCases {
      let reread = try CNPinningDocument(data: document.encoded(as: format))
      #expect(reread.entries.first?.configuration == configuration, "\(format)")
    }
    let plist = String(decoding: document.encoded(as: .propertyList), as: UTF8.self)
    #expect(plist.contains("<key>mayBeAnchor</key>"))
    let coded = try JSONDecoder().decode(CNChain.self, from: JSONEncoder().encode(Self.ecdsa))
    #expect(coded == Self.ecdsa)
    // A link that is not marked writes no mayBeAnchor key, so older readers read it unchanged.
    let plain = String(decoding: try JSONEncoder().encode(CNChainLink(.exact, "Root YR")), as: UTF8.self)
    #expect(!plain.contains("mayBeAnchor"))
  }
}
#endif
