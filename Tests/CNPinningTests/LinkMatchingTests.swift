import CNPinning
import Foundation
import Testing

@Suite("Link matching")
struct LinkMatchingTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let type: CNChainLink.LinkType
    let value: String
    let commonName: String
    let matches: Bool
    var testDescription: String { "\(type) \"\(value)\" vs \"\(commonName)\" → \(matches)" }
  }

  static let cases: [Case] = [
    // exact: equal bytes only
    Case(type: .exact, value: "R11", commonName: "R11", matches: true),
    Case(type: .exact, value: "R11", commonName: "R1", matches: false),
    Case(type: .exact, value: "R11", commonName: "R111", matches: false),
    Case(type: .exact, value: "R11", commonName: "r11", matches: false),
    Case(type: .exact, value: "R11", commonName: " R11", matches: false),
    Case(type: .exact, value: "R11", commonName: "R11 ", matches: false),
    Case(type: .exact, value: "R11", commonName: "", matches: false),
    // exact compares bytes, not canonically equivalent Unicode ("é" vs "e" + combining acute)
    Case(type: .exact, value: "Caf\u{E9}", commonName: "Cafe\u{301}", matches: false),
    Case(type: .exact, value: "Caf\u{E9}", commonName: "Caf\u{E9}", matches: true),
    // prefix: starts with, equal counts
    Case(type: .prefix, value: "ISRG Root", commonName: "ISRG Root X1", matches: true),
    Case(type: .prefix, value: "ISRG Root", commonName: "ISRG Root", matches: true),
    Case(type: .prefix, value: "ISRG Root", commonName: "ISRG Roo", matches: false),
    Case(type: .prefix, value: "ISRG Root", commonName: "isrg root X1", matches: false),
    Case(type: .prefix, value: "ISRG Root", commonName: "The ISRG Root", matches: false),
    // prefixWithNumber: value + one or more ASCII digits, nothing else
    Case(type: .prefixWithNumber, value: "R", commonName: "R10", matches: true),
    Case(type: .prefixWithNumber, value: "R", commonName: "R1", matches: true),
    Case(type: .prefixWithNumber, value: "R", commonName: "R0123456789", matches: true),
    Case(type: .prefixWithNumber, value: "R", commonName: "R", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "R10a", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "R 10", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "R1 0", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "R-10", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "R١٠", matches: false),  // Arabic-Indic digits
    Case(type: .prefixWithNumber, value: "R", commonName: "R１０", matches: false),  // fullwidth digits
    Case(type: .prefixWithNumber, value: "R", commonName: "R²", matches: false),  // superscript two
    Case(type: .prefixWithNumber, value: "R", commonName: "r10", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "E5", matches: false),
    Case(type: .prefixWithNumber, value: "R", commonName: "", matches: false),
    Case(
      type: .prefixWithNumber, value: "Apple Public Server ECC CA 1 - G", commonName: "Apple Public Server ECC CA 1 - G3",
      matches: true),
    Case(
      type: .prefixWithNumber, value: "Apple Public Server ECC CA 1 - G", commonName: "Apple Public Server ECC CA 1 - G",
      matches: false),
    Case(type: .prefixWithNumber, value: "ISRG Root X", commonName: "ISRG Root X1", matches: true),
    Case(type: .prefixWithNumber, value: "ISRG Root X", commonName: "ISRG Root X1\u{0}", matches: false),
    // suffix: plain string suffix, no dot boundary implied
    Case(type: .suffix, value: ".apple.com", commonName: "www.apple.com", matches: true),
    Case(type: .suffix, value: ".apple.com", commonName: ".apple.com", matches: true),
    Case(type: .suffix, value: ".apple.com", commonName: "apple.com", matches: false),
    Case(type: .suffix, value: ".apple.com", commonName: "www.apple.com.evil", matches: false),
    Case(type: .suffix, value: "austinsoft.com", commonName: "notaustinsoft.com", matches: true),
    Case(type: .suffix, value: "austinsoft.com", commonName: "AUSTINSOFT.COM", matches: false),
    Case(type: .suffix, value: "austinsoft.com", commonName: "", matches: false),
  ]

  @Test(arguments: cases)
  func matching(_ testCase: Case) throws {
    let link = try CNChainLink(testCase.type, testCase.value)
    #expect(link.matches(commonName: testCase.commonName) == testCase.matches)
  }

  @Test(arguments: CNChainLink.LinkType.allCases)
  func emptyValueIsRejected(_ type: CNChainLink.LinkType) {
    #expect(throws: CNConfigurationError(.emptyValue)) { try CNChainLink(type, "") }
  }

  @Test func linksRoundTripThroughCodable() throws {
    let link = try CNChainLink(.prefixWithNumber, "R")
    let data = try JSONEncoder().encode(link)
    #expect(try JSONDecoder().decode(CNChainLink.self, from: data) == link)
    #expect(throws: (any Error).self) {
      try JSONDecoder().decode(CNChainLink.self, from: Data(#"{"type":"exact","value":""}"#.utf8))
    }
    #expect(throws: (any Error).self) {
      try JSONDecoder().decode(CNChainLink.self, from: Data(#"{"type":"prefx","value":"R"}"#.utf8))
    }
  }
}
