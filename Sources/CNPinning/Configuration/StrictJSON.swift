/// A strict RFC 8259 JSON parser that keeps key order and rejects duplicate keys.
///
/// Foundation's parser silently keeps the last of two equal keys, which would let a repeated host
/// in a pinning file replace the pins above it unnoticed; this one refuses the document instead.
struct StrictJSON {
  struct SyntaxError: Error, CustomStringConvertible {
    let message: String
    let line: Int
    let column: Int
    var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
  }

  static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> ConfigValue {
    var parser = StrictJSON(cursor: ByteCursor(bytes))
    parser.cursor.skipByteOrderMark()
    let utf8IsValid = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
    guard utf8IsValid else { throw parser.error("the document is not valid UTF-8") }
    let value = try parser.parseValue(depth: 0)
    parser.cursor.skipWhitespace()
    guard parser.cursor.isAtEnd else { throw parser.error("unexpected text after the document") }
    return value
  }

  private var cursor: ByteCursor<[UInt8]>

  private func error(_ message: String) -> SyntaxError {
    let (line, column) = cursor.lineAndColumn
    return SyntaxError(message: message, line: line, column: column)
  }

  private mutating func parseValue(depth: Int) throws(SyntaxError) -> ConfigValue {
    guard depth < ConfigValue.maximumNesting else { throw error("nesting deeper than \(ConfigValue.maximumNesting) levels") }
    cursor.skipWhitespace()
    guard let first = cursor.current else { throw error("unexpected end of the document") }
    switch first {
    case UInt8(ascii: "{"): return try parseObject(depth: depth)
    case UInt8(ascii: "["): return try parseArray(depth: depth)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected character")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(SyntaxError) {
    let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    guard cursor.consume(expected) else { throw error("unexpected character") }
  }

  private mutating func parseObject(depth: Int) throws(SyntaxError) -> ConfigValue {
    cursor.position += 1
    var entries: [(key: String, value: ConfigValue)] = []
    var keys = Set<String>()
    cursor.skipWhitespace()
    if cursor.consume(UInt8(ascii: "}")) { return .dictionary(entries) }
    while true {
      cursor.skipWhitespace()
      guard cursor.current == UInt8(ascii: "\"") else { throw error("expected a string key") }
      let keyStart = cursor.position
      let key = try parseString()
      guard keys.insert(key).inserted else {
        cursor.position = keyStart
        throw error("duplicate key \"\(key)\" in the same object")
      }
      cursor.skipWhitespace()
      guard cursor.consume(UInt8(ascii: ":")) else { throw error("expected \":\"") }
      entries.append((key, try parseValue(depth: depth + 1)))
      cursor.skipWhitespace()
      guard !cursor.isAtEnd else { throw error("unexpected end of the document in an object") }
      if cursor.consume(UInt8(ascii: "}")) { return .dictionary(entries) }
      guard cursor.consume(UInt8(ascii: ",")) else { throw error("expected \",\" or \"}\"") }
    }
  }

  private mutating func parseArray(depth: Int) throws(SyntaxError) -> ConfigValue {
    cursor.position += 1
    var elements: [ConfigValue] = []
    cursor.skipWhitespace()
    if cursor.consume(UInt8(ascii: "]")) { return .array(elements) }
    while true {
      elements.append(try parseValue(depth: depth + 1))
      cursor.skipWhitespace()
      guard !cursor.isAtEnd else { throw error("unexpected end of the document in an array") }
      if cursor.consume(UInt8(ascii: "]")) { return .array(elements) }
      guard cursor.consume(UInt8(ascii: ",")) else { throw error("expected \",\" or \"]\"") }
    }
  }

  private mutating func parseString() throws(SyntaxError) -> String {
    cursor.position += 1
    var scalars = String.UnicodeScalarView()
    var runStart = cursor.position
    /// Adds the unescaped bytes since ``runStart``.
    func flushRun(_ cursor: ByteCursor<[UInt8]>) {
      if cursor.position > runStart { scalars.append(contentsOf: cursor.text(from: runStart).unicodeScalars) }
    }
    while let byte = cursor.current {
      switch byte {
      case UInt8(ascii: "\""):
        flushRun(cursor)
        cursor.position += 1
        return String(scalars)
      case UInt8(ascii: "\\"):
        flushRun(cursor)
        cursor.position += 1
        scalars.append(try parseEscape())
        runStart = cursor.position
      case 0..<0x20:
        throw error("control character in a string (escape it)")
      default:
        cursor.position += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
    guard let byte = cursor.next() else { throw error("unterminated escape") }
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let first = try parseHex4()
      if (0xDC00...0xDFFF).contains(first) { throw error("unpaired low surrogate in \\u escape") }
      if (0xD800...0xDBFF).contains(first) {
        guard cursor.current == UInt8(ascii: "\\"), cursor.peek(1) == UInt8(ascii: "u") else {
          throw error("unpaired high surrogate in \\u escape")
        }
        cursor.position += 2
        let second = try parseHex4()
        guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired high surrogate in \\u escape") }
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
      }
      return Unicode.Scalar(first)!
    default:
      cursor.position -= 1
      throw error("invalid escape")
    }
  }

  private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
    guard cursor.remaining >= 4 else { throw error("truncated \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = cursor.current ?? 0
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid hex digit in \\u escape")
      }
      value = value << 4 | UInt32(digit)
      cursor.position += 1
    }
    return value
  }

  private mutating func parseNumber() throws(SyntaxError) -> ConfigValue {
    let start = cursor.position
    var isInteger = true
    _ = cursor.consume(UInt8(ascii: "-"))
    guard let first = cursor.current, Self.isDigit(first) else { throw error("invalid number") }
    if cursor.consume(UInt8(ascii: "0")) {
      if let next = cursor.current, Self.isDigit(next) { throw error("leading zero in a number") }
    } else {
      cursor.skip(while: Self.isDigit)
    }
    if cursor.consume(UInt8(ascii: ".")) {
      isInteger = false
      guard cursor.skip(while: Self.isDigit) > 0 else { throw error("invalid number") }
    }
    if cursor.consume(UInt8(ascii: "e")) || cursor.consume(UInt8(ascii: "E")) {
      isInteger = false
      if !cursor.consume(UInt8(ascii: "+")) { _ = cursor.consume(UInt8(ascii: "-")) }
      guard cursor.skip(while: Self.isDigit) > 0 else { throw error("invalid number") }
    }
    let text = cursor.text(from: start)
    if isInteger, let integer = Int64(text) { return .integer(integer) }
    guard let real = Double(text), real.isFinite else {
      cursor.position = start
      throw error("number out of range")
    }
    return .real(real)
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
