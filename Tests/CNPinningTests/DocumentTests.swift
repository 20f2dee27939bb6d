import CNPinning
import Foundation
import Testing

@Suite("Documents and lint")
struct DocumentTests {
  static let json =
    #"{"PinnedDomains": {"b.test": {"includesSubdomains": true, "chainSet": [[{"type": "exact", "value": "Root & <Co> \"q\""}, {"type": "suffix", "value": ".b.test"}]]}, "[::1]": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "R"}], [{"type": "prefix", "value": "tab\there"}]]}}}"#

  @Test(arguments: CNPinningDocument.Format.allCases)
  func encodingRoundTrips(_ format: CNPinningDocument.Format) throws {
    let document = try CNPinningDocument(data: Data(Self.json.utf8))
    let encoded = document.encoded(as: format)
    let reloaded = try CNPinningDocument(data: encoded)
    #expect(reloaded == document)
    #expect(reloaded.entries.map(\.host) == ["[::1]", "b.test"])  // hosts as written, sorted
    #expect(reloaded.encoded(as: format) == encoded)  // stable output
  }

  /// A markup character followed by a combining mark is one Swift `Character` ("<\u{0742}"), but
  /// XML still sees a "<": escaping must work on Unicode scalars (found by FuzzConfiguration).
  @Test(arguments: CNPinningDocument.Format.allCases)
  func markupCharactersBeforeCombiningMarksRoundTrip(_ format: CNPinningDocument.Format) throws {
    let value = "R<\u{0742}x>\u{0301}&\u{0301}</string>"
    let json =
      #"{"PinnedDomains": {"b.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "\#(value)"}]]}}}"#
    let document = try CNPinningDocument(data: Data(json.utf8))
    let reloaded = try CNPinningDocument(data: document.encoded(as: format))
    #expect(reloaded == document)
  }

  @Test func managersFromDocumentsAndFromCodeAgree() throws {
    let document = try CNPinningDocument(data: Data(Self.json.utf8))
    let fromDocument = CNPinningManager(document: document)
    let fromCode = try CNPinningManager(
      configuration: Dictionary(uniqueKeysWithValues: document.entries.map { ($0.host, $0.configuration) }))
    #expect(fromDocument.pinnedDomains == fromCode.pinnedDomains)
    #expect(fromDocument.configuration(for: "x.b.test")?.domain == "b.test")
    #expect(fromDocument.configuration(for: "::1")?.domain == "::1")
  }

  @Test func lintOfACleanConfigurationIsEmpty() throws {
    let json =
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "prefixWithNumber", "value": "RA"}, {"type": "subjectAltName", "value": "api.example.com"}], [{"type": "prefix", "value": "DigiCert Global Root"}, {"type": "prefix", "value": "DigiCert Global G2"}, {"type": "subjectAltName", "value": ".example.com"}]]}}}"#
    #expect(CNConfigurationLinter.lint(data: Data(json.utf8)).isEmpty)
  }

  @Test func lintWarnsAboutExpiredAndSoonExpiringPins() throws {
    let now = Date(timeIntervalSince1970: 1_900_000_000)
    func findings(_ date: String) -> [String] {
      let json =
        #"{"PinnedDomains": {"a.test": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "Root X"}, {"type": "exact", "value": "a.test"}], [{"type": "prefixWithNumber", "value": "Other X"}, {"type": "exact", "value": "a.test"}]], "expirationDate": "\#(date)"}}}"#
      return CNConfigurationLinter.lint(data: Data(json.utf8), now: now).filter { $0.path.hasSuffix("expirationDate") }.map(
        \.message)
    }
    #expect(
      findings("2030-03-17T17:46:40Z") == [
        "expired at 2030-03-17T17:46:40Z: this host is no longer pinned; renew the pins or remove the date"
      ])
    #expect(findings("2030-03-27T17:46:40Z") == ["expires at 2030-03-27T17:46:40Z, in 10 days: ship renewed pins before then"])
    #expect(findings("2030-06-01T00:00:00Z").isEmpty)
  }

  @Test func lintTurnsLoadProblemsIntoErrors() {
    let findings = CNConfigurationLinter.lint(data: Data(#"{"PinnedDomains": {}}"#.utf8))
    #expect(
      findings == [
        CNLintFinding(
          severity: .error, path: "PinnedDomains", message: "PinnedDomains is empty: this configuration would pin nothing")
      ])
  }
}

/// The Info.plist as `Bundle.main.infoDictionary` hands it over (what `CNPinningManager()` reads
/// on Apple platforms), loaded by the same loader as the file.
@Suite struct InfoDictionaryTests {
  @Test func anInfoDictionaryLoadsLikeTheFileItCameFrom() throws {
    let json =
      #"{"CFBundleIdentifier": "com.example.app", "CNPinningManager": {"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "exact", "value": "api.example.com"}]]}}}}"#
    let fromFile = try CNPinningDocument(data: Data(json.utf8))
    let dictionary = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(try CNPinningDocument(infoDictionary: dictionary) == fromFile)
  }

  @Test func aMissingInfoPlistSaysSo() {
    #expect(
      throws: CNConfigurationError(
        source: "Info.plist", problems: [.init(path: "", error: .malformedDocument("the main bundle has no Info.plist"))])
    ) {
      try CNPinningDocument(infoDictionary: [:])
    }
  }
}
