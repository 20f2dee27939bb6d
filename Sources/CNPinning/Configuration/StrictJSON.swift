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

  static let maximumDepth = 64

  static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> ConfigValue {
    var parser = StrictJSON(bytes: bytes)
    if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
    let utf8IsValid = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
    guard utf8IsValid else { throw parser.error("the document is not valid UTF-8") }
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the document") }
    return value
  }

  private let bytes: [UInt8]
  private var position = 0

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private func error(_ message: String) -> SyntaxError {
    var line = 1
    var lineStart = 0
    for index in 0..<min(position, bytes.count) where bytes[index] == 0x0A {
      line += 1
      lineStart = index + 1
    }
    return SyntaxError(message: message, line: line, column: position - lineStart + 1)
  }

  private mutating func skipWhitespace() {
    while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
  }

  private mutating func parseValue(depth: Int) throws(SyntaxError) -> ConfigValue {
    guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    skipWhitespace()
    guard position < bytes.count else { throw error("unexpected end of the document") }
    switch bytes[position] {
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
    guard bytes.count - position >= expected.count,
      bytes[position..<(position + expected.count)].elementsEqual(expected)
    else { throw error("unexpected character") }
    position += expected.count
  }

  private mutating func parseObject(depth: Int) throws(SyntaxError) -> ConfigValue {
    position += 1
    var entries: [(key: String, value: ConfigValue)] = []
    var keys = Set<String>()
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return .dictionary(entries)
    }
    while true {
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
        throw error("expected a string key")
      }
      let keyStart = position
      let key = try parseString()
      guard keys.insert(key).inserted else {
        position = keyStart
        throw error("duplicate key \"\(key)\" in the same object")
      }
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected \":\"") }
      position += 1
      entries.append((key, try parseValue(depth: depth + 1)))
      skipWhitespace()
      guard position < bytes.count else { throw error("unexpected end of the document in an object") }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
      } else if bytes[position] == UInt8(ascii: "}") {
        position += 1
        return .dictionary(entries)
      } else {
        throw error("expected \",\" or \"}\"")
      }
    }
  }

  private mutating func parseArray(depth: Int) throws(SyntaxError) -> ConfigValue {
    position += 1
    var elements: [ConfigValue] = []
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return .array(elements)
    }
    while true {
      elements.append(try parseValue(depth: depth + 1))
      skipWhitespace()
      guard position < bytes.count else { throw error("unexpected end of the document in an array") }
      if bytes[position] == UInt8(ascii: ",") {
        position += 1
      } else if bytes[position] == UInt8(ascii: "]") {
        position += 1
        return .array(elements)
      } else {
        throw error("expected \",\" or \"]\"")
      }
    }
  }

  private mutating func parseString() throws(SyntaxError) -> String {
    position += 1
    var scalars = String.UnicodeScalarView()
    var runStart = position
    func flushRun(_ end: Int) {
      if end > runStart {
        scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
      }
    }
    while position < bytes.count {
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        flushRun(position)
        position += 1
        return String(scalars)
      case UInt8(ascii: "\\"):
        flushRun(position)
        position += 1
        scalars.append(try parseEscape())
        runStart = position
      case 0..<0x20:
        throw error("control character in a string (escape it)")
      default:
        position += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
    guard position < bytes.count else { throw error("unterminated escape") }
    let byte = bytes[position]
    position += 1
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
        guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        else { throw error("unpaired high surrogate in \\u escape") }
        position += 2
        let second = try parseHex4()
        guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired high surrogate in \\u escape") }
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
      }
      return Unicode.Scalar(first)!
    default:
      position -= 1
      throw error("invalid escape")
    }
  }

  private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
    guard bytes.count - position >= 4 else { throw error("truncated \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid hex digit in \\u escape")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }

  private mutating func parseNumber() throws(SyntaxError) -> ConfigValue {
    let start = position
    var isInteger = true
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
      if position < bytes.count, isDigit(bytes[position]) { throw error("leading zero in a number") }
    } else {
      skipDigits()
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
      skipDigits()
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
      isInteger = false
      position += 1
      if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
        position += 1
      }
      guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
      skipDigits()
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    if isInteger, let integer = Int64(text) { return .integer(integer) }
    guard let real = Double(text), real.isFinite else {
      position = start
      throw error("number out of range")
    }
    return .real(real)
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  private mutating func skipDigits() {
    while position < bytes.count, isDigit(bytes[position]) { position += 1 }
  }
}
