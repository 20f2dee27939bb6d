import Foundation

/// A strict reader for XML property lists, for the types a configuration holds (dict, array,
/// string, key, true/false, integer, real, date, data): the values of the elements
/// ``MarkupElement`` (the one XML reader) reads. Refuses repeated dictionary keys (where
/// Foundation silently keeps the last), unknown elements and malformed markup, and reports the
/// line of each error.
enum XMLPropertyList {
  struct SyntaxError: Error, CustomStringConvertible {
    let message: String
    let line: Int
    var description: String { "invalid XML property list at line \(line): \(message)" }
  }

  static func parse(_ data: Data) throws(SyntaxError) -> ConfigValue {
    let valid = data.withUnsafeBytes { UTF8Validation.isValid($0.bindMemory(to: UInt8.self)) }
    guard valid else { throw SyntaxError(message: "the document is not valid UTF-8", line: 1) }
    let roots: [MarkupElement]
    do {
      roots = try MarkupElement.elements(String(decoding: data, as: UTF8.self))
    } catch {
      throw SyntaxError(message: error.reason, line: error.line)
    }
    guard let root = roots.first else { throw SyntaxError(message: "expected an element", line: 1) }
    var top = root
    if root.name == "plist" {
      try onlyElements(in: root)
      guard let first = root.children.first else { throw SyntaxError(message: "expected an element", line: root.line) }
      if first.name != "key", root.children.count > 1 {
        throw SyntaxError(message: "more than one value in <plist>", line: root.children[1].line)
      }
      top = first
    }
    if top.name == "key" {
      // The seed's README shows Info.plist fragments; pasted alone they start with a key.
      throw SyntaxError(
        message:
          "the property list starts with <key>: this looks like a fragment pasted from an Info.plist; wrap it in <plist version=\"1.0\"><dict> … </dict></plist>",
        line: top.line)
    }
    if roots.count > 1 {
      throw SyntaxError(message: "unexpected content after the property list", line: roots[1].line)
    }
    return try value(top, depth: 0)
  }

  private static func value(_ element: MarkupElement, depth: Int) throws(SyntaxError) -> ConfigValue {
    guard depth < ConfigValue.maximumNesting else {
      throw SyntaxError(message: "nesting deeper than \(ConfigValue.maximumNesting) levels", line: element.line)
    }
    func failure(_ message: String) -> SyntaxError { SyntaxError(message: message, line: element.line) }
    switch element.name {
    case "dict":
      return try dictionary(element, depth: depth)
    case "array":
      try onlyElements(in: element)
      var elements: [ConfigValue] = []
      for child in element.children { elements.append(try value(child, depth: depth + 1)) }
      return .array(elements)
    case "true", "false":
      guard try text(of: element).isEmpty else { throw failure("<\(element.name)/> holds text") }
      return .bool(element.name == "true")
    case "string":
      return .string(try text(of: element))
    case "integer":
      let text = try text(of: element).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let integer = Int64(text) else { throw failure("<integer> \"\(text)\" is not an integer") }
      return .integer(integer)
    case "real":
      let text = try text(of: element).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let real = Double(text), real.isFinite else { throw failure("<real> \"\(text)\" is not a finite number") }
      return .real(real)
    case "date":
      let text = try text(of: element).trimmingCharacters(in: .whitespacesAndNewlines)
      guard let date = ISO8601.date(from: text) else { throw failure("<date> \"\(text)\" is not an ISO 8601 date") }
      return .date(date)
    case "data":
      guard let data = Data(base64Encoded: try text(of: element).filter { !$0.isWhitespace }) else {
        throw failure("<data> is not valid base64")
      }
      return .data(data)
    default:
      throw failure("unsupported element <\(element.name)>")
    }
  }

  /// A `<dict>`: `<key>` and value, in turn, each key once.
  private static func dictionary(_ element: MarkupElement, depth: Int) throws(SyntaxError) -> ConfigValue {
    try onlyElements(in: element)
    var entries: [(key: String, value: ConfigValue)] = []
    var keys = Set<String>()
    var children = element.children[...]
    while let keyElement = children.popFirst() {
      guard keyElement.name == "key" else {
        throw SyntaxError(message: "expected <key> in <dict>, found <\(keyElement.name)>", line: keyElement.line)
      }
      let key = try text(of: keyElement)
      guard keys.insert(key).inserted else {
        throw SyntaxError(message: "duplicate key \"\(key)\" in the same <dict>", line: keyElement.line)
      }
      guard let valueElement = children.popFirst() else {
        throw SyntaxError(message: "expected an element", line: keyElement.line)
      }
      entries.append((key, try value(valueElement, depth: depth + 1)))
    }
    entries.sort { $0.key < $1.key }
    return .dictionary(entries)
  }

  /// The text of an element that holds text only.
  private static func text(of element: MarkupElement) throws(SyntaxError) -> String {
    if let child = element.children.first {
      throw SyntaxError(message: "<\(element.name)> holds an element <\(child.name)>", line: child.line)
    }
    return element.text
  }

  /// Refuses text (other than white space) in an element that holds elements.
  private static func onlyElements(in element: MarkupElement) throws(SyntaxError) {
    guard element.text.utf8.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
      throw SyntaxError(message: "text in <\(element.name)>, where only elements belong", line: element.line)
    }
  }
}
