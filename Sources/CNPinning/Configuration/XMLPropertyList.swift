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

  static let maximumDepth = 64

  private let bytes: [UInt8]
  private var position = 0

  static func parse(_ data: Data) throws(SyntaxError) -> ConfigValue {
    var reader = XMLPropertyList(bytes: [UInt8](data))
    if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
    let valid = reader.bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) }
    guard valid else { throw reader.error("the document is not valid UTF-8") }
    try reader.skipProlog()
    var value: ConfigValue
    var wrapped = false
    if reader.peekTag() == "plist" {
      _ = try reader.openTag()
      wrapped = true
      try reader.skipMisc()
    }
    value = try reader.value(depth: 0)
    try reader.skipMisc()
    if wrapped {
      try reader.closeTag("plist")
      try reader.skipMisc()
    }
    guard reader.position == reader.bytes.count else { throw reader.error("unexpected content after the property list") }
    return value
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private func error(_ message: String) -> SyntaxError {
    SyntaxError(message: message, line: 1 + bytes[..<min(position, bytes.count)].filter { $0 == 0x0A }.count)
  }

  // MARK: - Markup

  private mutating func skipWhitespace() {
    while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
  }

  private func startsWith(_ text: String) -> Bool {
    var index = position
    for byte in text.utf8 {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
    }
    return true
  }

  private mutating func skip(past terminator: String, what: String) throws(SyntaxError) {
    let needle = Array(terminator.utf8)
    while position < bytes.count {
      if startsWith(terminator) {
        position += needle.count
        return
      }
      position += 1
    }
    throw error("unterminated \(what)")
  }

  /// The XML declaration, comments, processing instructions and the DOCTYPE.
  private mutating func skipProlog() throws(SyntaxError) {
    while true {
      skipWhitespace()
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
      skipWhitespace()
      guard startsWith("<!--") else { return }
      try skip(past: "-->", what: "comment")
    }
  }

  private func peekTag() -> String? {
    guard position < bytes.count, bytes[position] == UInt8(ascii: "<"), position + 1 < bytes.count,
      bytes[position + 1] != UInt8(ascii: "/")
    else { return nil }
    var end = position + 1
    while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
    return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
      || byte == 0x5F
  }

  /// Reads `<name attributes…>` or `<name/>`; returns the name and whether it was empty.
  private mutating func openTag() throws(SyntaxError) -> (name: String, isEmpty: Bool) {
    guard let name = peekTag(), !name.isEmpty else { throw error("expected an element") }
    position += 1 + name.utf8.count
    var quote: UInt8?
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      if let open = quote {
        if byte == open { quote = nil }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
      case UInt8(ascii: ">"): return (name, false)
      case UInt8(ascii: "/"):
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw error("malformed <\(name)> tag") }
        position += 1
        return (name, true)
      case UInt8(ascii: "<"): throw error("malformed <\(name)> tag")
      default: continue
      }
    }
    throw error("unterminated <\(name)> tag")
  }

  private mutating func closeTag(_ name: String) throws(SyntaxError) {
    guard startsWith("</\(name)") else { throw error("expected </\(name)>") }
    position += 2 + name.utf8.count
    skipWhitespace()
    guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw error("malformed </\(name)>") }
    position += 1
  }

  /// Character data up to the next tag, with entities and CDATA sections resolved.
  private mutating func text(of name: String) throws(SyntaxError) -> String {
    var result = ""
    var runStart = position
    func flush(_ end: Int) { result += String(decoding: bytes[runStart..<end], as: UTF8.self) }
    while position < bytes.count {
      if bytes[position] == UInt8(ascii: "<"), startsWith("<![CDATA[") {
        flush(position)
        position += 9
        let start = position
        try skip(past: "]]>", what: "CDATA section")
        result += String(decoding: bytes[start..<(position - 3)], as: UTF8.self)
        runStart = position
        continue
      }
      if bytes[position] == UInt8(ascii: "<"), startsWith("<!--") {
        flush(position)
        try skip(past: "-->", what: "comment")
        runStart = position
        continue
      }
      switch bytes[position] {
      case UInt8(ascii: "<"):
        flush(position)
        try closeTag(name)
        return result
      case UInt8(ascii: "&"):
        flush(position)
        result.unicodeScalars.append(try entity())
        runStart = position
      default:
        position += 1
      }
    }
    throw error("unterminated <\(name)>")
  }

  private mutating func entity() throws(SyntaxError) -> Unicode.Scalar {
    let start = position
    while position < bytes.count, bytes[position] != UInt8(ascii: ";"), position - start < 12 { position += 1 }
    guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else { throw error("malformed entity") }
    let name = String(decoding: bytes[(start + 1)..<position], as: UTF8.self)
    position += 1
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
    guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
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
