import Foundation

/// A strict reader for XML property lists, for the types a configuration holds (dict, array,
/// string, key, true/false, integer, real, date, data). Refuses repeated dictionary keys (where
/// Foundation silently keeps the last), unknown elements and malformed markup, and reports the
/// line of each error.
struct XMLPropertyList {
  struct SyntaxError: Error, CustomStringConvertible {
    let message: String
    let line: Int
    var description: String { "invalid XML property list at line \(line): \(message)" }
  }

  private var cursor: ByteCursor<[UInt8]>

  static func parse(_ data: Data) throws(SyntaxError) -> ConfigValue {
    let bytes = [UInt8](data)
    var reader = XMLPropertyList(cursor: ByteCursor(bytes))
    reader.cursor.skipByteOrderMark()
    let valid = bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
    guard valid else { throw reader.error("the document is not valid UTF-8") }
    try reader.skipProlog()
    var value: ConfigValue
    var wrapped = false
    if reader.peekTag() == "plist" {
      _ = try reader.openTag()
      wrapped = true
      try reader.skipMisc()
    }
    if reader.peekTag() == "key" {
      // The seed's README shows Info.plist fragments; pasted alone they start with a key.
      throw reader.error(
        "the property list starts with <key>: this looks like a fragment pasted from an Info.plist; wrap it in <plist version=\"1.0\"><dict> … </dict></plist>"
      )
    }
    value = try reader.value(depth: 0)
    try reader.skipMisc()
    if wrapped {
      try reader.closeTag("plist")
      try reader.skipMisc()
    }
    guard reader.cursor.isAtEnd else { throw reader.error("unexpected content after the property list") }
    return value
  }

  private func error(_ message: String) -> SyntaxError {
    SyntaxError(message: message, line: cursor.lineAndColumn.line)
  }

  // MARK: - Markup

  private func startsWith(_ text: String) -> Bool { cursor.starts(with: text.utf8) }

  private mutating func skip(past terminator: String, what: String) throws(SyntaxError) {
    while !cursor.isAtEnd {
      if cursor.consume(terminator.utf8) { return }
      cursor.position += 1
    }
    throw error("unterminated \(what)")
  }

  /// The XML declaration, comments, processing instructions and the DOCTYPE.
  private mutating func skipProlog() throws(SyntaxError) {
    while true {
      cursor.skipWhitespace()
      if startsWith("<?") {
        try skip(past: "?>", what: "processing instruction")
      } else if startsWith("<!--") {
        try skip(past: "-->", what: "comment")
      } else if startsWith("<!DOCTYPE") {
        try skip(past: ">", what: "DOCTYPE")
      } else {
        return
      }
    }
  }

  private mutating func skipMisc() throws(SyntaxError) {
    while true {
      cursor.skipWhitespace()
      guard startsWith("<!--") else { return }
      try skip(past: "-->", what: "comment")
    }
  }

  private func peekTag() -> String? {
    guard cursor.current == UInt8(ascii: "<"), let second = cursor.peek(1), second != UInt8(ascii: "/") else { return nil }
    var name = cursor
    name.position += 1
    let start = name.position
    name.skip(while: Self.isNameByte)
    return name.text(from: start)
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
      || byte == 0x5F
  }

  /// Reads `<name attributes…>` or `<name/>`; returns the name and whether it was empty.
  private mutating func openTag() throws(SyntaxError) -> (name: String, isEmpty: Bool) {
    guard let name = peekTag(), !name.isEmpty else { throw error("expected an element") }
    cursor.position += 1 + name.utf8.count
    var quote: UInt8?
    while let byte = cursor.next() {
      if let open = quote {
        if byte == open { quote = nil }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
      case UInt8(ascii: ">"): return (name, false)
      case UInt8(ascii: "/"):
        guard cursor.consume(UInt8(ascii: ">")) else { throw error("malformed <\(name)> tag") }
        return (name, true)
      case UInt8(ascii: "<"): throw error("malformed <\(name)> tag")
      default: continue
      }
    }
    throw error("unterminated <\(name)> tag")
  }

  private mutating func closeTag(_ name: String) throws(SyntaxError) {
    guard cursor.consume("</\(name)".utf8) else { throw error("expected </\(name)>") }
    cursor.skipWhitespace()
    guard cursor.consume(UInt8(ascii: ">")) else { throw error("malformed </\(name)>") }
  }

  /// Character data up to the next tag, with entities and CDATA sections resolved.
  private mutating func text(of name: String) throws(SyntaxError) -> String {
    var result = ""
    var runStart = cursor.position
    while let byte = cursor.current {
      if byte == UInt8(ascii: "<"), startsWith("<![CDATA[") {
        result += cursor.text(from: runStart)
        cursor.position += 9
        let start = cursor.position
        try skip(past: "]]>", what: "CDATA section")
        cursor.position -= 3
        result += cursor.text(from: start)
        cursor.position += 3
        runStart = cursor.position
        continue
      }
      if byte == UInt8(ascii: "<"), startsWith("<!--") {
        result += cursor.text(from: runStart)
        try skip(past: "-->", what: "comment")
        runStart = cursor.position
        continue
      }
      switch byte {
      case UInt8(ascii: "<"):
        result += cursor.text(from: runStart)
        try closeTag(name)
        return result
      case UInt8(ascii: "&"):
        result += cursor.text(from: runStart)
        result.unicodeScalars.append(try entity())
        runStart = cursor.position
      default:
        cursor.position += 1
      }
    }
    throw error("unterminated <\(name)>")
  }

  private mutating func entity() throws(SyntaxError) -> Unicode.Scalar {
    let start = cursor.position + 1
    while let byte = cursor.current, byte != UInt8(ascii: ";"), cursor.position - start < 11 { cursor.position += 1 }
    guard cursor.current == UInt8(ascii: ";") else { throw error("malformed entity") }
    let name = cursor.text(from: start)
    cursor.position += 1
    switch name {
    case "lt": return "<"
    case "gt": return ">"
    case "amp": return "&"
    case "quot": return "\""
    case "apos": return "'"
    default:
      let value: UInt32?
      if name.hasPrefix("#x") {
        value = UInt32(name.dropFirst(2), radix: 16)
      } else if name.hasPrefix("#") {
        value = UInt32(name.dropFirst(), radix: 10)
      } else {
        value = nil
      }
      guard let value, value != 0, let scalar = Unicode.Scalar(value) else { throw error("unknown entity &\(name);") }
      return scalar
    }
  }

  // MARK: - Values

  private mutating func value(depth: Int) throws(SyntaxError) -> ConfigValue {
    guard depth < ConfigValue.maximumNesting else { throw error("nesting deeper than \(ConfigValue.maximumNesting) levels") }
    let (name, isEmpty) = try openTag()
    switch name {
    case "dict":
      return isEmpty ? .dictionary([]) : try dictionary(depth: depth)
    case "array":
      return isEmpty ? .array([]) : try array(depth: depth)
    case "true", "false":
      if !isEmpty { try closeTag(name) }
      return .bool(name == "true")
    case "string":
      return .string(isEmpty ? "" : try text(of: name))
    case "integer":
      let text = isEmpty ? "" : try text(of: name).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let integer = Int64(text) else { throw error("<integer> \"\(text)\" is not an integer") }
      return .integer(integer)
    case "real":
      let text = isEmpty ? "" : try text(of: name).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let real = Double(text), real.isFinite else { throw error("<real> \"\(text)\" is not a finite number") }
      return .real(real)
    case "date":
      let text = isEmpty ? "" : try text(of: name).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let date = ISO8601.date(from: text) else { throw error("<date> \"\(text)\" is not an ISO 8601 date") }
      return .date(date)
    case "data":
      let text = isEmpty ? "" : try text(of: name).filter { !$0.isWhitespace }
      guard let data = Data(base64Encoded: text) else { throw error("<data> is not valid base64") }
      return .data(data)
    default:
      throw error("unsupported element <\(name)>")
    }
  }

  private mutating func dictionary(depth: Int) throws(SyntaxError) -> ConfigValue {
    var entries: [(key: String, value: ConfigValue)] = []
    var keys = Set<String>()
    while true {
      try skipMisc()
      if startsWith("</") {
        try closeTag("dict")
        entries.sort { $0.key < $1.key }
        return .dictionary(entries)
      }
      let (name, isEmpty) = try openTag()
      guard name == "key" else { throw error("expected <key> in <dict>, found <\(name)>") }
      let key = isEmpty ? "" : try text(of: "key")
      guard keys.insert(key).inserted else { throw error("duplicate key \"\(key)\" in the same <dict>") }
      try skipMisc()
      entries.append((key, try value(depth: depth + 1)))
    }
  }

  private mutating func array(depth: Int) throws(SyntaxError) -> ConfigValue {
    var elements: [ConfigValue] = []
    while true {
      try skipMisc()
      if startsWith("</") {
        try closeTag("array")
        return .array(elements)
      }
      elements.append(try value(depth: depth + 1))
    }
  }
}
