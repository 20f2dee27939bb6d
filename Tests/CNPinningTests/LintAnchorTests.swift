// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
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
    // The error about the root link (a link several anchors match also gets a note; see below).
    return CNConfigurationLinter.lint(document, trustAnchors: anchors).first {
      $0.path == #"PinnedDomains["a.test"].chainSet[0][0]"# && $0.severity != .note
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

  /// A root link that several anchors satisfy is noted, naming them, unless a CA key is pinned
  /// too (issue 28, item 4: a same-name root with another key passes CN pins).
  @Test func aRootLinkSeveralAnchorsMatchIsNoted() throws {
    let copycat = try TestIdentity.root("Globe Root").certificate
    let anchors = Self.anchors + [copycat]
    func notes(_ link: CNChainLink, spkiPins: [CNSPKIPin] = []) throws -> [String] {
      let chain = try CNChain([link, try CNChainLink(.exact, "a.test")])
      let backup = try CNChain([try CNChainLink(.exact, "Baltimore CyberTrust Root"), try CNChainLink(.suffix, ".test")])
      let document = try CNPinningDocument(configuration: [
        "a.test": try CNConfiguration(chains: [chain, backup], spkiPins: spkiPins, allowsSingleHashPin: true)
      ])
      return CNConfigurationLinter.lint(document, trustAnchors: anchors).filter {
        $0.severity == .note && $0.path == #"PinnedDomains["a.test"].chainSet[0][0]"#
      }.map(\.message)
    }
    let rotation = try notes(try CNChainLink(.prefixWithNumber, "GTS Root R"))
    #expect(rotation.count == 1)
    #expect(
      rotation.first?.hasPrefix(
        #"root link prefixWithNumber "GTS Root R" matches 2 of the 5 trust anchors: "GTS Root R1", "GTS Root R2"; "#) == true,
      "\(rotation)")
    let twins = try notes(try CNChainLink(.exact, "Globe Root"))
    #expect(twins.first?.contains("matches 2 of the 5 trust anchors (some share a name with different keys)") == true, "\(twins)")
    #expect(try notes(try CNChainLink(.exact, "Baltimore CyberTrust Root")).isEmpty, "one anchor: nothing to note")
    let pinned = try notes(try CNChainLink(.exact, "Globe Root"), spkiPins: [CNSPKIPin(certificate: copycat, scope: .ca)])
    #expect(pinned.isEmpty, "a CA key pin binds the chain to one key")
  }

  @Test func withoutAnchorsRootLinksAreNotChecked() throws {
    let chain = try CNChain([try CNChainLink(.prefixWithNumber, "Nowhere Root R"), try CNChainLink(.exact, "a.test")])
    let document = try CNPinningDocument(configuration: ["a.test": try CNConfiguration(chains: [chain])])
    #expect(!CNConfigurationLinter.lint(document).contains { $0.severity == .error })
    #expect(CNConfigurationLinter.lint(document, trustAnchors: Self.anchors).contains { $0.severity == .error })
  }
}
#endif
