import CNPinning
import Foundation
import Testing

/// Mistakes that leave a configuration unable to match, flagged by lint (issue 28, item 7: a
/// chain written leaf → root and a value with a trailing space passed lint silently).
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

  @Test func valuesWithSurroundingWhitespaceAreFlagged() {
    let findings = Self.findings(
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "prefixWithNumber", "value": "R "}, {"type": "exact", "value": "\tapi.example.com"}]]}}}"#
    )
    let flagged = findings.filter { $0.message.contains("starts or ends with whitespace") }.map(\.path)
    #expect(
      flagged == [
        #"PinnedDomains["api.example.com"].chainSet[0][1].value"#, #"PinnedDomains["api.example.com"].chainSet[0][2].value"#,
      ],
      "\(findings)")
    #expect(findings.first { $0.path.hasSuffix("[2].value") }?.message.hasPrefix(#""\x09api.example.com""#) == true)
  }
}
