// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// A leaf pinned by the names its subjectAltName makes it valid for, in the shapes CAs issue in
/// 2026: no Common Name, no subject at all, a CN that is not among the names, wildcards, IP
/// addresses, a CDN's hundred names.
@Suite("subjectAltName links")
struct SubjectAltNameLinkTests {
  static let root = try! TestIdentity.root("Test Root X1")
  static let intermediate = try! root.issueIntermediate("YE1")

  static func leaf(subject: [TestNameAttribute] = [], dns: [String] = [], ip: [String] = []) throws -> CNCertificate {
    var spec = TestCertificateSpec.leaf("unused", dnsNames: dns, ipAddresses: ip)
    spec.subject = subject
    return try intermediate.issue(spec).certificate
  }

  static func link(_ value: String) throws -> CNChainLink { try CNChainLink(.subjectAltName, value) }

  struct Case: Sendable, CustomTestStringConvertible {
    let value: String
    let dns: [String]
    var ip: [String] = []
    let matches: Bool
    var testDescription: String { "\(value) vs \(dns + ip) → \(matches)" }
  }

  static let cases: [Case] = [
    Case(value: "api.example.com", dns: ["api.example.com"], matches: true),
    // compared as host names are: case, a trailing dot
    Case(value: "API.Example.COM.", dns: ["api.example.com"], matches: true),
    Case(value: "api.example.com", dns: ["API.EXAMPLE.COM"], matches: true),
    Case(value: "api.example.com", dns: ["www.example.com", "api.example.com"], matches: true),
    Case(value: "api.example.com", dns: ["example.com"], matches: false),
    Case(value: "api.example.com", dns: ["api.example.com.evil"], matches: false),
    // a wildcard covers exactly one left-most label (RFC 6125 6.4.3)
    Case(value: "api.example.com", dns: ["*.example.com"], matches: true),
    Case(value: "a.b.example.com", dns: ["*.example.com"], matches: false),
    Case(value: "example.com", dns: ["*.example.com"], matches: false),
    Case(value: "api.example.com", dns: ["a*.example.com"], matches: false),
    Case(value: "api.example.com", dns: ["*.*.com"], matches: false),
    // a domain: a name below it, on a dot boundary
    Case(value: ".example.com", dns: ["api.example.com"], matches: true),
    Case(value: ".example.com", dns: ["a.b.example.com"], matches: true),
    Case(value: ".example.com", dns: ["*.example.com"], matches: true),
    Case(value: ".example.com", dns: ["example.com"], matches: false),
    Case(value: ".example.com", dns: ["evilexample.com"], matches: false),
    Case(value: ".example.com", dns: ["*.com"], matches: false),
    // IP addresses, compared in their canonical forms
    Case(value: "192.0.2.7", dns: [], ip: ["192.0.2.7"], matches: true),
    Case(value: "192.0.2.7", dns: ["192.0.2.7"], matches: false),
    Case(value: "2001:DB8:0::1", dns: [], ip: ["2001:db8::1"], matches: true),
    Case(value: "[2001:db8::1]", dns: [], ip: ["2001:db8::1"], matches: true),
    Case(value: "2001:db8::2", dns: [], ip: ["2001:db8::1"], matches: false),
    Case(value: "::ffff:192.0.2.7", dns: [], ip: ["192.0.2.7"], matches: true),
    Case(value: "api.example.com", dns: [], ip: ["192.0.2.7"], matches: false),
  ]

  @Test(arguments: cases)
  func matchesAsHostNamesCompare(_ testCase: Case) throws {
    let certificate = try Self.leaf(dns: testCase.dns, ip: testCase.ip)
    #expect(try Self.link(testCase.value).matches(certificate) == testCase.matches)
  }

  @Test func aLeafWithoutASubjectIsPinnedByItsNameAndRefusedByACNLink() throws {
    let leaf = try Self.leaf(dns: ["api.example.com"])
    #expect(leaf.commonName == nil)
    let chain = [leaf, Self.intermediate.certificate, Self.root.certificate]
    let bySAN = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration([
        CNChain([CNChainLink(.exact, "Test Root X1"), CNChainLink(.prefixWithNumber, "YE"), Self.link("api.example.com")])
      ])
    ])
    #expect(bySAN.evaluate(host: "api.example.com", chain: chain).acceptedMatch != nil)
    let byCN = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration([
        CNChain([
          CNChainLink(.exact, "Test Root X1"), CNChainLink(.prefixWithNumber, "YE"), CNChainLink(.exact, "api.example.com"),
        ])
      ])
    ])
    let failure = try #require(byCN.evaluate(host: "api.example.com", chain: chain).failure)
    #expect(failure.description.contains("the subject has no Common Name"), "\(failure)")
  }

  @Test func aLeafWhoseCNIsNotAmongItsNamesMatchesByItsNamesOnly() throws {
    let leaf = try Self.leaf(subject: [.commonName("lb-7f3a.edge.example.net")], dns: ["api.example.com"])
    #expect(try Self.link("api.example.com").matches(leaf))
    #expect(try !Self.link("lb-7f3a.edge.example.net").matches(leaf))
  }

  @Test func aCDNLeafWithAHundredAndFiftyNamesMatchesAndARejectionListsAFew() throws {
    let names = (0..<150).map { "customer\($0).cdn.example" }
    let leaf = try Self.leaf(dns: names)
    #expect(try Self.link("customer123.cdn.example").matches(leaf))
    let manager = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration([
        CNChain([CNChainLink(.exact, "Test Root X1"), CNChainLink(.prefixWithNumber, "YE"), Self.link("api.example.com")])
      ])
    ])
    let failure = try #require(
      manager.evaluate(host: "api.example.com", chain: [leaf, Self.intermediate.certificate, Self.root.certificate]).failure)
    guard case .noMatchingChain(let mismatches) = failure.reason,
      case .subjectAltName(let position, _, let listed) = mismatches.first
    else {
      Issue.record("wrong reason: \(failure.reason)")
      return
    }
    #expect(position == 2)
    #expect(listed.count == 150)
    #expect(failure.description.contains(#""customer0.cdn.example", "customer1.cdn.example""#), "\(failure)")
    #expect(failure.description.contains("and 142 more, which does not match subjectAltName \"api.example.com\""), "\(failure)")
  }

  @Test func aLeafWithoutSubjectAltNameIsRefusedSayingSo() throws {
    let leaf = try Self.leaf(subject: [.commonName("api.example.com")])
    let manager = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration([CNChain([CNChainLink(.prefixWithNumber, "YE"), Self.link("api.example.com")])])
    ])
    let failure = try #require(manager.evaluate(host: "api.example.com", chain: [leaf, Self.intermediate.certificate]).failure)
    #expect(failure.description.contains("has no subjectAltName, so it cannot match"), "\(failure)")
  }

  @Test(arguments: ["", "*.example.com", "api..example.com", "https://api.example.com", ".192.0.2.1", "a b.example.com"])
  func aMalformedValueIsRefusedNamingIt(_ value: String) throws {
    #expect(throws: CNConfigurationError.self) { try CNChainLink(.subjectAltName, value) }
    let json = jsonConfiguration(
      """
      {"includesSubdomains": false,
      "chainSet": [[{"type": "exact", "value": "Root"}, {"type": "subjectAltName", "value": \(DocumentTestsSupport.json(value))}]]}
      """)
    let found = problems(json: json)
    #expect(found.map(\.path) == [#"PinnedDomains["api.example.com"].chainSet[0][1].value"#], "\(found)")
  }

  @Test func onlyTheLastLinkMayBeASubjectAltNameLink() throws {
    #expect(throws: CNConfigurationError.self) {
      try CNChain([Self.link("api.example.com"), CNChainLink(.exact, "api.example.com")])
    }
    let plist = plistDocument(
      """
      <dict><key>PinnedDomains</key><dict><key>api.example.com</key><dict>
        <key>includesSubdomains</key><false/>
        <key>chainSet</key><array><array>
          <dict><key>type</key><string>exact</string><key>value</key><string>Root</string></dict>
          <dict><key>type</key><string>subjectAltName</string><key>value</key><string>api.example.com</string></dict>
          <dict><key>type</key><string>exact</string><key>value</key><string>api.example.com</string></dict>
        </array></array>
      </dict></dict></dict>
      """)
    let found = problems(plist)
    #expect(found.map(\.path) == [#"PinnedDomains["api.example.com"].chainSet[0][1].type"#])
    #expect(found.first?.code == .misplacedLink)
  }

  @Test func aSubjectAltNameLinkNeverMatchesACommonName() throws {
    #expect(try !Self.link("api.example.com").matches(commonName: "api.example.com"))
  }
}

/// JSON text helpers for these tests.
enum DocumentTestsSupport {
  static func json(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
  }
}
#endif
