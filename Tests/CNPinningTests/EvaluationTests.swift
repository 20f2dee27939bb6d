// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Evaluation")
struct EvaluationTests {
  /// Test Root X1 → R11 → api.example.com, verified chain order (leaf first).
  static let pki: (root: TestIdentity, r11: TestIdentity, r12: TestIdentity, e5: TestIdentity) = {
    let root = try! TestIdentity.root("Test Root X1")
    return (
      root, try! root.issueIntermediate("R11"), try! root.issueIntermediate("R12"),
      try! root.issueIntermediate("E5")
    )
  }()

  static func leaf(_ commonName: String = "api.example.com", from issuer: TestIdentity = pki.r11) -> [CNCertificate] {
    try! issuer.issueLeaf(commonName, dnsNames: [commonName]).chain
  }

  static let rotationSafe = try! chain((.prefixWithNumber, "Test Root X"), (.prefixWithNumber, "R"), (.exact, "api.example.com"))

  static let manager = try! CNPinningManager(configuration: [
    "api.example.com": CNConfiguration(includesSubdomains: false, [rotationSafe]),
    "example.org": CNConfiguration(
      includesSubdomains: true,
      [
        chain((.exact, "Other Root"), (.suffix, ".example.org")),
        chain((.prefixWithNumber, "Test Root X"), (.prefix, "E"), (.suffix, ".example.org")),
      ]),
  ])

  @Test func matchingChainIsAccepted() throws {
    let result = Self.manager.evaluate(host: "api.example.com", chain: Self.leaf())
    let match = try #require(result.acceptedMatch, "expected acceptance, got \(result)")
    #expect(match.host == "api.example.com")
    #expect(match.domain == "api.example.com")
    #expect(match.chainIndex == 0)
    #expect(match.chain == Self.rotationSafe)
    #expect(result.allowsConnection)
  }

  @Test func rotatedIntermediateIsStillAccepted() {
    #expect(Self.manager.evaluate(host: "api.example.com", chain: Self.leaf(from: Self.pki.r12)).allowsConnection)
  }

  @Test func secondChainOfTheSetCanMatch() throws {
    let result = Self.manager.evaluate(host: "www.example.org", chain: Self.leaf("www.example.org", from: Self.pki.e5))
    let match = try #require(result.acceptedMatch, "expected acceptance, got \(result)")
    #expect(match.domain == "example.org")
    #expect(match.host == "www.example.org")
    #expect(match.chainIndex == 1)
  }

  @Test func unpinnedHostIsNotPinned() {
    #expect(Self.manager.evaluate(host: "other.example.com", chain: Self.leaf()) == .notPinned)
  }

  @Test func differentIssuerIsRejectedWithAnActionableReason() throws {
    let result = Self.manager.evaluate(host: "api.example.com", chain: Self.leaf(from: Self.pki.e5))
    let failure = try #require(rejection(of: result))
    #expect(failure.host == "api.example.com")
    #expect(failure.domain == "api.example.com")
    #expect(failure.configuration == Self.manager.pinnedDomains["api.example.com"])
    #expect(failure.presentedCommonNames == ["Test Root X1", "E5", "api.example.com"])
    #expect(
      failure.reason
        == .noMatchingChain([.commonName(position: 1, link: try CNChainLink(.prefixWithNumber, "R"), commonName: "E5")]))
    #expect(
      failure.description
        == #"Pin mismatch for api.example.com: the verified chain ["Test Root X1" → "E5" → "api.example.com"] (root → leaf) matches none of the 1 pinned chain; chain 0 [prefixWithNumber "Test Root X" → prefixWithNumber "R" → exact "api.example.com"]: certificate 1 (root → leaf) has CN "E5", which does not match prefixWithNumber "R""#
    )
  }

  @Test func chainLengthMismatchIsRejected() throws {
    let withoutRoot = Array(Self.leaf().dropLast())
    let failure = try #require(rejection(of: Self.manager.evaluate(host: "api.example.com", chain: withoutRoot)))
    #expect(failure.reason == .noMatchingChain([.certificateCount(expected: [3], actual: 2)]))
    #expect(failure.description.contains("expected 3 certificates, the verified chain has 2"))

    let withExtra = Self.leaf() + [Self.pki.root.certificate]
    #expect(!Self.manager.evaluate(host: "api.example.com", chain: withExtra).allowsConnection)
  }

  @Test func chainGivenRootFirstIsRejected() throws {
    let reversed = Array(Self.leaf().reversed())
    let failure = try #require(rejection(of: Self.manager.evaluate(host: "api.example.com", chain: reversed)))
    #expect(failure.presentedCommonNames == ["api.example.com", "R11", "Test Root X1"])
  }

  @Test func emptyChainForAPinnedHostIsRejected() throws {
    let failure = try #require(rejection(of: Self.manager.evaluate(host: "api.example.com", chain: [])))
    #expect(failure.reason == .emptyChain)
  }

  @Test func subdomainFailureSaysWhichDomainApplied() throws {
    let result = Self.manager.evaluate(host: "a.b.example.org", chain: Self.leaf("a.b.example.org"))
    let failure = try #require(rejection(of: result))
    #expect(failure.domain == "example.org")
    #expect(failure.description.contains("(pinned through example.org, which includes subdomains)"))
    let mismatches = try #require(
      { if case .noMatchingChain(let mismatches) = failure.reason { mismatches } else { nil } }(),
      "wrong reason: \(failure.reason)")
    #expect(mismatches.count == 2)
    #expect(mismatches[0] == .certificateCount(expected: [2], actual: 3))
    #expect(mismatches[1] == .commonName(position: 1, link: try CNChainLink(.prefix, "E"), commonName: "R11"))
  }

  @Test(arguments: [
    ("no CN", [TestNameAttribute.organization("api.example.com")], CNCertificate.CommonNameProblem.missing),
    ("NUL", [TestNameAttribute.verbatim(tag: 0x0C, bytes: Array("api.example.com\0x".utf8))], .containsNUL),
    ("bad UTF-8", [TestNameAttribute.verbatim(tag: 0x0C, bytes: [0x61, 0xFF])], .undecodable("UTF8String")),
  ])
  func unreadableLeafCommonNameIsRejected(
    _ name: String, _ subject: [TestNameAttribute], _ problem: CNCertificate.CommonNameProblem
  ) throws {
    let leaf = try Self.pki.r11.issue(TestCertificateSpec(subject: subject)).chain
    let manager = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration([chain((.prefix, "T"), (.prefix, "R"), (.prefix, "a"))]),
      "any.example.com": CNConfiguration([chain((.prefix, "T"), (.prefix, "R"), (.suffix, "x"))]),
    ])
    let failure = try #require(rejection(of: manager.evaluate(host: "api.example.com", chain: leaf)))
    #expect(
      failure.reason
        == .noMatchingChain([.unreadableCommonName(position: 2, link: try CNChainLink(.prefix, "a"), problem: problem)]))
    #expect(failure.presentedCommonNames == ["Test Root X1", "R11", nil])
    #expect(!manager.evaluate(host: "any.example.com", chain: leaf).allowsConnection)
  }

  @Test func theLastCommonNameDecides() throws {
    let leaf = try Self.pki.r11.issue(
      TestCertificateSpec(subject: [.commonName("api.example.com"), .commonName("evil.example.net")])
    ).chain
    #expect(!Self.manager.evaluate(host: "api.example.com", chain: leaf).allowsConnection)
  }

  @Test func seedExampleBehavesAsDocumented() async throws {
    try await offTheSharedThreads {
      let manager = try CNPinningManager(document: CNPinningDocument(data: plistDocument(ConfigurationLoadingTests.seedExample)))
      let isrg = try TestIdentity.root("ISRG Root X1", keyType: .rsa4096)
      for intermediate in ["R10", "R11", "R13"] {
        let chain = try isrg.issueIntermediate(intermediate, keyType: .rsa2048).issueLeaf("austinsoft.com").chain
        #expect(manager.evaluate(host: "austinsoft.com", chain: chain).allowsConnection)
      }
      let e5 = try isrg.issueIntermediate("E5").issueLeaf("austinsoft.com").chain
      #expect(!manager.evaluate(host: "austinsoft.com", chain: e5).allowsConnection)
      #expect(manager.evaluate(host: "www.austinsoft.com", chain: e5) == .notPinned)
    }
  }

  @Test(.tags(.concurrency)) func concurrentEvaluationsAgree() async {
    let good = Self.leaf()
    let bad = Self.leaf(from: Self.pki.e5)
    let manager = Self.manager
    let outcomes = await withTaskGroup(of: (Int, Int).self) { group in
      for _ in 0..<8 {
        group.addTask {
          var accepted = 0
          var rejected = 0
          for index in 0..<2000 {
            let result = manager.evaluate(host: "api.example.com", chain: index % 2 == 0 ? good : bad)
            if case .accepted = result { accepted += 1 }
            if case .rejected = result { rejected += 1 }
          }
          return (accepted, rejected)
        }
      }
      return await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
    }
    #expect(outcomes.count == 8)
    for (accepted, rejected) in outcomes {
      #expect(accepted == 1000)
      #expect(rejected == 1000)
    }
  }

  private func rejection(of result: CNPinningResult) -> CNPinningFailure? {
    if case .rejected(let failure) = result { return failure }
    Issue.record("expected a rejection, got \(result)")
    return nil
  }
}
#endif
