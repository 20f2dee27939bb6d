/// Text from outside — a certificate's names, a server's headers or reasons — made safe to show
/// on a terminal, in a log, or inside a JSON or Swift string literal: the package's one escaper.
/// Control characters, and the Unicode characters that reorder text, hide it or break lines,
/// become visible escapes in the syntax of where the text goes (`\x1b` or `\u{202e}` on a
/// terminal, `\u202e` in JSON, `\u{202e}` in Swift), so nothing in it can move the cursor, clear
/// a line, retitle a window, start a line of its own or end the literal it is in.
package enum VisibleText {
  /// Where escaped text goes, which decides how an escape is spelled.
  package enum Syntax: Sendable {
    /// A terminal or a log: `\xNN` below U+0100, `\u{NNNN}` above.
    case terminal
    /// A JSON string (RFC 8259): `\n`, `\r`, `\t`, `\uNNNN`, UTF-16 surrogate pairs above U+FFFF.
    case json
    /// A Swift string literal: `\n`, `\r`, `\t`, `\u{N}`.
    case swift
  }

  /// `text` with every character `needsEscape` names escaped for `syntax`. `keepingNewlines`
  /// leaves line feeds as they are (for text of our own with values already escaped in it).
  /// `escapingBackslashes` doubles a backslash, so that an escape in the output always means a
  /// character in the input; `escapingQuotes` escapes a double quote (inside a literal).
  package static func escaped(
    _ text: String, as syntax: Syntax = .terminal, keepingNewlines: Bool = false, escapingBackslashes: Bool = true,
    escapingQuotes: Bool = false
  ) -> String {
    func escapes(_ scalar: Unicode.Scalar) -> Bool {
      needsEscape(scalar, keepingNewlines: keepingNewlines) || (escapingBackslashes && scalar == "\\")
        || (escapingQuotes && scalar == "\"")
    }
    guard text.unicodeScalars.contains(where: escapes) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      guard escapes(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      result += escape(scalar, as: syntax)
    }
    return result
  }

  /// `text` in double quotes, escaped for `syntax`, a double quote in it included.
  package static func quoted(_ text: String, as syntax: Syntax = .terminal) -> String {
    "\"" + escaped(text, as: syntax, escapingQuotes: true) + "\""
  }

  /// What lets text look other than it is: C0 and C1 controls and DEL, the line and paragraph
  /// separators, and every character that shows as nothing or changes how the text around it
  /// shows: format characters (General_Category Cf: the bidirectional controls, zero-width
  /// spaces and joiners, the byte order mark, the tag characters), the other default-ignorable
  /// code points (variation selectors, the Hangul fillers), and the tag block as a whole.
  package static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool = false) -> Bool {
    switch scalar.value {
    case 0x0A: return !keepingNewlines
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0xE0000...0xE007F: return true
    case 0x20...0x7E: return false
    default:
      let properties = scalar.properties
      return properties.generalCategory == .format || properties.isBidiControl || properties.isDefaultIgnorableCodePoint
    }
  }

  private static func escape(_ scalar: Unicode.Scalar, as syntax: Syntax) -> String {
    switch (scalar, syntax) {
    case ("\\", _): return "\\\\"
    case ("\"", _): return "\\\""
    case ("\n", .json), ("\n", .swift): return "\\n"
    case ("\r", .json), ("\r", .swift): return "\\r"
    case ("\t", .json), ("\t", .swift): return "\\t"
    case (_, .terminal):
      return scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
    case (_, .swift):
      return "\\u{" + hex(scalar.value, digits: 1) + "}"
    case (_, .json):
      return String(Character(scalar)).utf16.map { "\\u" + hex(UInt32($0), digits: 4) }.joined()
    }
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
