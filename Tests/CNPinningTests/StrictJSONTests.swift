import Testing

@testable import CNPinning

@Suite("Strict JSON")
struct StrictJSONTests {
  @Test func valuesParse() throws {
    let value = try StrictJSON.parse(
      Array(#" {"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83d\ude00\n\"\\\/"], "b": {}} "#.utf8))
    guard case .dictionary(let entries) = value, entries.map(\.key) == ["a", "b"],
      case .array(let items)? = value["a"], items.count == 6,
      case .integer(1) = items[0], case .real(-2500) = items[1], case .bool(true) = items[2],
      case .bool(false) = items[3], case .null = items[4], case .string(let text) = items[5]
    else {
      Issue.record("unexpected tree \(value)")
      return
    }
    #expect(text == "xé😀\n\"\\/")
  }

  @Test(arguments: [
    "", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", ".5", "-", "1e", "tru", "nul", "\"\\x\"", "\"\\u12\"",
    "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a\u{1}b\"", "\"unterminated", "{} {}", "{\"a\":1,\"a\":2}",
    "1e999", "[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 101),
  ])
  func malformedInputIsRejected(_ text: String) {
    #expect(throws: StrictJSON.SyntaxError.self) { try StrictJSON.parse(Array(text.utf8)) }
  }

  @Test func invalidUTF8IsRejected() {
    #expect(throws: StrictJSON.SyntaxError.self) { try StrictJSON.parse([0x22, 0xC0, 0xAF, 0x22]) }
    #expect(throws: StrictJSON.SyntaxError.self) { try StrictJSON.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
  }

  @Test func largeIntegersBecomeReals() throws {
    let value = try StrictJSON.parse(Array("123456789012345678901234567890".utf8))
    #expect({ if case .real = value { true } else { false } }(), "expected a real, got \(value)")
  }
}
