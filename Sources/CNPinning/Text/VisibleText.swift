/// Text from outside — a certificate's names, a server's headers or reasons — made safe to show
/// on a terminal or in a log: control characters, and the Unicode controls that reorder text or
/// break lines, become visible escapes (`\x1b`, `\u{202e}`), so nothing in it can move the
/// cursor, clear a line, retitle a window or start a line of its own.
package enum VisibleText {
  /// `text` with every control character escaped; `keepingNewlines` leaves line feeds as they
  /// are (for text of our own with values already escaped in it). `escapingBackslashes` doubles
  /// a backslash, so that an escape in the output always means a character in the input.
  package static func escaped(_ text: String, keepingNewlines: Bool = false, escapingBackslashes: Bool = true) -> String {
    guard
      text.unicodeScalars.contains(where: {
        needsEscape($0, keepingNewlines: keepingNewlines) || (escapingBackslashes && $0 == "\\")
      })
    else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if escapingBackslashes && scalar == "\\" {
        result += "\\\\"
      } else if needsEscape(scalar, keepingNewlines: keepingNewlines) {
        result += scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// `text` in double quotes, escaped, with a double quote in it escaped too.
  package static func quoted(_ text: String) -> String {
    "\"" + escaped(text).replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  /// C0 and C1 controls, DEL, and the line and paragraph separators and bidirectional controls
  /// that let text look other than it is.
  package static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool = false) -> Bool {
    switch scalar.value {
    case 0x0A: return !keepingNewlines
    case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
