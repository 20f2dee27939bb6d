import Foundation
import Testing

@testable import CNPinning

/// Text from outside cannot hide, reorder or disguise itself in what the package prints: every
/// character that shows as nothing or changes how the text around it shows is escaped, in each
/// syntax output goes to.
@Suite struct VisibleTextTests {
  /// One of each class the escaper must name, with the escape each syntax spells.
  @Test(arguments: [
    (0x1B, "control (ESC)"), (0x0D, "control (CR)"), (0x85, "C1 control (NEL)"), (0x2028, "line separator"),
    (0x202E, "bidi override"), (0x2067, "bidi isolate"), (0x061C, "Arabic letter mark (bidi control)"),
    (0x200B, "zero-width space"), (0x200C, "zero-width non-joiner"), (0x200D, "zero-width joiner"),
    (0x2060, "word joiner"), (0x2062, "invisible times"), (0x2064, "invisible plus"), (0xFEFF, "byte order mark"),
    (0x00AD, "soft hyphen"), (0x115F, "Hangul choseong filler"), (0x3164, "Hangul filler"),
    (0xFFA0, "halfwidth Hangul filler"), (0xFE0F, "variation selector"), (0xE0001, "language tag"),
    (0xE0041, "tag letter A"), (0xE007F, "cancel tag"),
  ])
  func everyInvisibleOrReorderingCharacterIsEscaped(_ value: UInt32, _ what: String) throws {
    let scalar = try #require(Unicode.Scalar(value))
    let text = "R1\(Character(scalar))1"
    #expect(VisibleText.needsEscape(scalar), "\(what) is not escaped")
    let hex = String(value, radix: 16)
    let terminal = VisibleText.escaped(text)
    #expect(!terminal.unicodeScalars.contains(scalar), "\(what) reaches a terminal")
    #expect(
      terminal
        == (value < 0x100
          ? "R1\\x\(hex.count < 2 ? "0" + hex : hex)1"
          : "R1\\u{\(hex.count < 4 ? String(repeating: "0", count: 4 - hex.count) + hex : hex)}1"))
    let swift = VisibleText.escaped(text, as: .swift)
    #expect(swift == "R1\\u{\(hex)}1" || scalar == "\r", "\(what) in Swift: \(swift)")
    let json = VisibleText.escaped(text, as: .json)
    #expect(!json.unicodeScalars.contains(scalar), "\(what) in JSON: \(json)")
    let decoded = try JSONSerialization.jsonObject(with: Data("\"\(json)\"".utf8), options: .fragmentsAllowed) as? String
    #expect(decoded == text, "the JSON escape of \(what) reads back as the character")
  }

  /// Letters, digits, spaces, punctuation and names in other scripts are left as they are.
  @Test(arguments: ["ISRG Root X1", "Root YR", "GTS Root R1", "Bücher CA", "東京 CA 1", "Ελληνικά", "عربي CA", "a-b_c.d", "é"])
  func visibleTextIsLeftAlone(_ text: String) {
    #expect(VisibleText.escaped(text) == text)
    #expect(VisibleText.escaped(text, as: .json) == text)
  }
}
