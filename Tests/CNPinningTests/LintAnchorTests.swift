// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if os(Linux) && !CNPINNING_APPLE_CHECK
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// `CNConfigurationLinter` with trust anchors: a root link no anchor matches is an error that
/// names the closest anchors and a link that would match them.
@Suite("Lint against trust anchors")
struct LintAnchorTests {
  static let anchors: [CNCertificate] = ["GTS Root R1", "GTS Root R2", "Baltimore CyberTrust Root", "Globe Root"].map {
    try! TestIdentity.root($0).certificate
  }

  static func rootFinding(_ link: CNChainLink) throws -> CNLintFinding? {
    let chain = try CNChain([link, try CNChainLink(.exact, "a.test")])
    // A second chain that matches, so that only the root link under test is found.
    let backup = try CNChain([try CNChainLink(.prefix, "GTS Root R"), try CNChainLink(.exact, "a.test")])
    let document = try CNPinningDocument(configuration: ["a.test": try CNConfiguration(chains: [chain, backup])])
    return CNConfigurationLinter.lint(document, trustAnchors: anchors).first {
      $0.path == #"PinnedDomains["a.test"].chainSet[0][0]"#
    }
  }

  @Test(arguments: [
    (CNChainLink.LinkType.prefixWithNumber, "GTS Root R", nil),
    (.exact, "GTS Root R", #"closest anchors: "GTS Root R1", "GTS Root R2"; prefixWithNumber "GTS Root R" would match them"#),
    (
      .exact, "Baltimore CyberTrust",
      #"closest anchors: "Baltimore CyberTrust Root"; exact "Baltimore CyberTrust Root" would match it"#
    ),
    (.exact, "Glob Root", #"closest anchors: "Globe Root"; exact "Globe Root" would match it"#),  // a typo
    (.prefix, "Unknown CA", "no anchor has a similar name"),
  ])
  func rootLinks(_ type: CNChainLink.LinkType, _ value: String, _ advice: String?) throws {
    let finding = try Self.rootFinding(try CNChainLink(type, value))
    guard let advice else {
      #expect(finding == nil)
      return
    }
    #expect(finding?.severity == .error)
    #expect(finding?.message.hasPrefix("root link \(type.rawValue) \"\(value)\" matches none of the 4 trust anchors") == true)
    #expect(finding?.message.hasSuffix(advice) == true, "\(finding?.message ?? "no finding")")
  }

  @Test func withoutAnchorsRootLinksAreNotChecked() throws {
    let chain = try CNChain([try CNChainLink(.prefixWithNumber, "Nowhere Root R"), try CNChainLink(.exact, "a.test")])
    let document = try CNPinningDocument(configuration: ["a.test": try CNConfiguration(chains: [chain])])
    #expect(!CNConfigurationLinter.lint(document).contains { $0.severity == .error })
    #expect(CNConfigurationLinter.lint(document, trustAnchors: Self.anchors).contains { $0.severity == .error })
  }
}
#endif
