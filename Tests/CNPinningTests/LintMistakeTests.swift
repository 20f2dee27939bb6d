import CNPinning
import Foundation
import Testing

#if CNPINNING_LINUX_BACKEND
import CNPinningTestKit
#endif

/// Mistakes that leave a configuration unable to match, flagged by lint: a chain written
/// leaf → root, whitespace that no name can have.
@Suite struct LintMistakeTests {
  static func findings(_ json: String) -> [CNLintFinding] {
    CNConfigurationLinter.lint(data: Data(json.utf8), source: "pins.json")
  }

  @Test func aChainWrittenLeafFirstIsAnError() {
    let reversed = Self.findings(
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "api.example.com"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "prefixWithNumber", "value": "ISRG Root X"}], [{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "suffix", "value": ".example.com"}]]}}}"#
    )
    let finding = reversed.first { $0.path == #"PinnedDomains["api.example.com"].chainSet[0]"# }
    #expect(finding?.severity == .error)
    #expect(finding?.message.contains("chains are written root → leaf") == true, "\(reversed)")
    #expect(!reversed.contains { $0.path == #"PinnedDomains["api.example.com"].chainSet[1]"# && $0.severity == .error })
    let suffixFirst = Self.findings(
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "suffix", "value": ".example.com"}, {"type": "prefix", "value": "Some Root"}]]}}}"#
    )
    #expect(suffixFirst.contains { $0.path.hasSuffix("chainSet[0]") && $0.severity == .error })
  }

  /// Whitespace is flagged only where it cannot match: leading whitespace, and trailing
  /// whitespace on an `exact` or `suffix` value that no anchor's name has. A `prefixWithNumber`
  /// ending in a space is what `cnpin pins` suggests for `Amazon Root CA 1` and must stay
  /// (following lint's old advice to remove it made `check` fail).
  @Test func onlyWhitespaceThatCannotMatchIsFlagged() throws {
    let json =
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "Amazon Root CA "}, {"type": "prefix", "value": "Amazon RSA "}, {"type": "exact", "value": "\tapi.example.com"}], [{"type": "exact", "value": "Newcomer Root CA 1 "}, {"type": "suffix", "value": ".example.com "}]]}}}"#
    let flagged = { (anchors: [CNCertificate]?) in
      CNConfigurationLinter.lint(data: Data(json.utf8), trustAnchors: anchors).filter { $0.message.contains("whitespace") }
        .map(\.path)
    }
    let expected = [
      #"PinnedDomains["api.example.com"].chainSet[0][2].value"#, #"PinnedDomains["api.example.com"].chainSet[1][0].value"#,
      #"PinnedDomains["api.example.com"].chainSet[1][1].value"#,
    ]
    #expect(flagged(nil) == expected)
    #if CNPINNING_LINUX_BACKEND
    // An anchor whose name does end with the space makes that exact link a possible match.
    let spaced = try TestIdentity.root("Newcomer Root CA 1 ").certificate
    let amazon = try TestIdentity.root("Amazon Root CA 1").certificate
    #expect(flagged([spaced, amazon]) == [expected[0], expected[2]])
    #endif
    let findings = CNConfigurationLinter.lint(data: Data(json.utf8))
    #expect(
      findings.first { $0.path == expected[0] }?.message.hasPrefix(#""\x09api.example.com" starts with whitespace"#) == true)
  }

}
