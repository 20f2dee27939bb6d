// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Apple's NSAppTransportSecurity › NSPinnedDomains, read from an Info.plist and enforced with
/// ATS's semantics.
@Suite("NSPinnedDomains")
struct PinnedDomainsTests {
  static let pki: (root: TestIdentity, intermediate: TestIdentity, leaf: TestIdentity) = {
    let root = try! TestIdentity.root("ATS Root")
    let intermediate = try! root.issueIntermediate("ATS CA")
    return (root, intermediate, try! intermediate.issueLeaf("www.example.org"))
  }()
  static let unrelated = Data(repeating: 5, count: 32).base64EncodedString()

  static func infoPlist(_ domains: String) -> Data {
    plistDocument(
      "<dict><key>CFBundleIdentifier</key><string>app</string><key>NSAppTransportSecurity</key><dict><key>NSAllowsLocalNetworking</key><true/><key>NSPinnedDomains</key><dict>\(domains)</dict></dict></dict>"
    )
  }

  static func identities(_ key: String, _ digests: [String]) -> String {
    "<key>\(key)</key><array>" + digests.map { "<dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict>" }.joined()
      + "</array>"
  }

  @Test func caIdentitiesMatchAnyCACertificateOfTheChain() throws {
    let plist = Self.infoPlist(
      "<key>example.org</key><dict><key>NSIncludesSubdomains</key><true/>"
        + Self.identities("NSPinnedCAIdentities", [Self.pki.root.certificate.spkiSHA256Base64, Self.unrelated]) + "</dict>")
    let manager = try CNPinningManager(document: CNPinningDocument(data: plist))
    #expect(manager.evaluate(host: "www.example.org", chain: Self.pki.leaf.chain).allowsConnection)
    #expect(manager.evaluate(host: "example.org", chain: Self.pki.leaf.chain).allowsConnection)
    let other = try TestIdentity.root("ATS Root").issueIntermediate("ATS CA").issueLeaf("www.example.org")
    #expect(!manager.evaluate(host: "www.example.org", chain: other.chain).allowsConnection)
  }

  @Test func leafIdentitiesMatchOnlyTheLeaf() throws {
    let plist = Self.infoPlist(
      "<key>example.org</key><dict>"
        + Self.identities("NSPinnedLeafIdentities", [Self.pki.intermediate.certificate.spkiSHA256Base64, Self.unrelated])
        + "</dict>")
    let manager = try CNPinningManager(document: CNPinningDocument(data: plist))
    #expect(!manager.evaluate(host: "example.org", chain: Self.pki.leaf.chain).allowsConnection)
    // NSIncludesSubdomains defaults to false.
    #expect(manager.evaluate(host: "www.example.org", chain: Self.pki.leaf.chain) == .notPinned)
  }

  @Test func bothCategoriesMustMatchWhenBothAreGiven() throws {
    let leaf = Self.pki.leaf.certificate.spkiSHA256Base64
    let ca = Self.pki.intermediate.certificate.spkiSHA256Base64
    func manager(ca caDigests: [String], leaf leafDigests: [String]) throws -> CNPinningManager {
      try CNPinningManager(
        document: CNPinningDocument(
          data: Self.infoPlist(
            "<key>www.example.org</key><dict>" + Self.identities("NSPinnedCAIdentities", caDigests)
              + Self.identities("NSPinnedLeafIdentities", leafDigests) + "</dict>")))
    }
    #expect(try manager(ca: [ca], leaf: [leaf]).evaluate(host: "www.example.org", chain: Self.pki.leaf.chain).allowsConnection)
    let caOnly = try manager(ca: [ca], leaf: [Self.unrelated]).evaluate(host: "www.example.org", chain: Self.pki.leaf.chain)
    #expect(caOnly.failure?.reason == .noMatchingSPKIPin([try CNSPKIPin(sha256Base64: Self.unrelated, scope: .leaf)]))
    #expect(
      !(try manager(ca: [Self.unrelated], leaf: [leaf])).evaluate(host: "www.example.org", chain: Self.pki.leaf.chain)
        .allowsConnection)
  }

  /// ATS accepts one identity, so it loads, with a warning (manager, lint; the log hook in
  /// WarningHookTests) instead of
  /// the refusal CNPinning's own format gives a single hash pin.
  @Test(arguments: ["NSPinnedLeafIdentities", "NSPinnedCAIdentities"])
  func aSingleIdentityLoadsAsATSLoadsItWithAWarning(_ key: String) throws {
    let digest =
      key == "NSPinnedLeafIdentities" ? Self.pki.leaf.certificate.spkiSHA256Base64 : Self.pki.root.certificate.spkiSHA256Base64
    let plist = Self.infoPlist("<key>www.example.org</key><dict>" + Self.identities(key, [digest]) + "</dict>")
    let manager = try CNPinningManager(document: CNPinningDocument(data: plist))

    #expect(manager.evaluate(host: "www.example.org", chain: Self.pki.leaf.chain).allowsConnection)
    let other = try TestIdentity.root("ATS Root").issueIntermediate("ATS CA").issueLeaf("www.example.org")
    #expect(!manager.evaluate(host: "www.example.org", chain: other.chain).allowsConnection)
    let path = #"NSAppTransportSecurity.NSPinnedDomains["www.example.org"]"#
    #expect(manager.warnings.map(\.path) == [path])
    #expect(manager.warnings.first?.message.contains("add a backup identity") == true)
    let lint = CNConfigurationLinter.lint(data: plist)
    #expect(lint.contains { $0.severity == .warning && $0.path == path && $0.message.contains("backup") })
    #expect(!lint.contains { $0.severity == .error })
  }

  /// Converting keeps ATS entries under NSPinnedDomains (where one identity is allowed), beside
  /// CNPinning's own hosts, so what loads converts and loads again unchanged.
  @Test(arguments: CNPinningDocument.Format.allCases)
  func pinnedDomainsRoundTripUnderTheirOwnKeys(_ format: CNPinningDocument.Format) throws {
    let plist = plistDocument(
      "<dict><key>CNPinningManager</key><dict><key>PinnedDomains</key><dict><key>api.example.com</key><dict><key>includesSubdomains</key><false/><key>chainSet</key><array><array><dict><key>type</key><string>exact</string><key>value</key><string>A</string></dict></array></array></dict></dict></dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>example.org</key><dict><key>NSIncludesSubdomains</key><true/>"
        + Self.identities("NSPinnedCAIdentities", [Self.unrelated, Self.pki.root.certificate.spkiSHA256Base64])
        + Self.identities("NSPinnedLeafIdentities", [Self.pki.leaf.certificate.spkiSHA256Base64])
        + "</dict><key>one.example.org</key><dict>" + Self.identities("NSPinnedLeafIdentities", [Self.unrelated])
        + "</dict></dict></dict></dict>")
    let document = try CNPinningDocument(data: plist)
    let encoded = document.encoded(as: format)
    let reloaded = try CNPinningDocument(data: encoded)
    #expect(reloaded == document)
    #expect(reloaded.warnings == document.warnings)
    #expect(String(decoding: encoded, as: UTF8.self).contains("NSPinnedLeafIdentities"))
    let onlyATS = try CNPinningDocument(
      data: Self.infoPlist(
        "<key>one.example.org</key><dict>" + Self.identities("NSPinnedCAIdentities", [Self.unrelated]) + "</dict>"))
    #expect(try CNPinningDocument(data: onlyATS.encoded(as: format)) == onlyATS)
    #expect(!String(decoding: onlyATS.encoded(as: format), as: UTF8.self).contains("CNPinningManager"))
  }

  @Test func pinnedDomainsSitBesideCNPinningManager() throws {
    let plist = plistDocument(
      "<dict><key>CNPinningManager</key><dict><key>PinnedDomains</key><dict><key>api.example.com</key><dict><key>includesSubdomains</key><false/><key>chainSet</key><array><array><dict><key>type</key><string>exact</string><key>value</key><string>A</string></dict></array></array></dict></dict></dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>example.org</key><dict>"
        + Self.identities("NSPinnedCAIdentities", [Self.unrelated, Self.pki.root.certificate.spkiSHA256Base64])
        + "</dict></dict></dict></dict>")
    let manager = try CNPinningManager(document: CNPinningDocument(data: plist))
    #expect(Set(manager.pinnedDomains.keys) == ["api.example.com", "example.org"])
  }

  @Test(arguments: [
    (
      "<key>Example.ORG</key><dict>"
        + identities("NSPinnedCAIdentities", [unrelated, Data(repeating: 6, count: 32).base64EncodedString()])
        + "</dict><key>example.org</key><dict>"
        + identities("NSPinnedCAIdentities", [unrelated, Data(repeating: 7, count: 32).base64EncodedString()]) + "</dict>",
      [
        CNConfigurationError.Problem(
          path: #"NSAppTransportSecurity.NSPinnedDomains["example.org"]"#,
          error: .duplicateHost("example.org", sameAs: "Example.ORG"))
      ]
    ),
    (
      "<key>example.org</key><dict><key>NSIncludesSubdomains</key><true/></dict>",
      [
        .init(
          path: #"NSAppTransportSecurity.NSPinnedDomains["example.org"]"#,
          error: .missingValue("NSPinnedCAIdentities or NSPinnedLeafIdentities"))
      ]
    ),
    (
      "<key>example.org</key><dict><key>NSPinnedCAIdentities</key><array/></dict>",
      [.init(path: #"NSAppTransportSecurity.NSPinnedDomains["example.org"].NSPinnedCAIdentities"#, error: .noPinsDefined)]
    ),
    (
      "<key>example.org</key><dict>" + identities("NSPinnedCAIdentities", ["short", unrelated]) + "</dict>",
      [
        .init(
          path: #"NSAppTransportSecurity.NSPinnedDomains["example.org"].NSPinnedCAIdentities[0].SPKI-SHA256-BASE64"#,
          error: .invalidDigest("short", reason: "is not valid base64"))
      ]
    ),
    (
      "<key>example.org</key><dict><key>NSPinnedCAIdentity</key><array/></dict>",
      [
        .init(
          path: #"NSAppTransportSecurity.NSPinnedDomains["example.org"].NSPinnedCAIdentity"#,
          error: .unknownKey("NSPinnedCAIdentity", suggestion: "NSPinnedCAIdentities")),
        .init(
          path: #"NSAppTransportSecurity.NSPinnedDomains["example.org"]"#,
          error: .missingValue("NSPinnedCAIdentities or NSPinnedLeafIdentities")),
      ]
    ),
  ])
  func problemsNameTheElement(_ domains: String, _ expected: [CNConfigurationError.Problem]) {
    #expect(problems(Self.infoPlist(domains)) == expected)
  }
}
#endif
