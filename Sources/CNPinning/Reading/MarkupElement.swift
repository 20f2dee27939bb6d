/// An XML element: its name, attributes, text and child elements. The package's one XML
/// reader: configurations' property lists (``XMLPropertyList`` reads their values from it),
/// and `cnpin`'s reading of Network Security Config files. Not FoundationXML, whose libxml2
/// (with the system's ICU) every cnpin process loaded at start for one command (issue 57).
///
/// What it reads: the XML declaration and other processing instructions, comments, CDATA,
/// elements with single- or double-quoted attributes, the five predefined entities and character
/// references, and a document type declaration without an internal subset (a property list's
/// `<!DOCTYPE plist PUBLIC …>`), which says nothing it acts on. What it refuses, each with the
/// line it is on: an internal subset (and so any entity of its own), an unknown entity, a tag
/// that does not close or match, text outside the root element, more than one root (``parse(_:)``),
/// and nesting deeper than ``maximumDepth``.
package struct MarkupElement: Equatable, Sendable {
  package let name: String
  package var attributes: [String: String] = [:]
  package var text = ""
  package var children: [MarkupElement] = []
  /// The line its start tag is on.
  package var line = 0

  package init(name: String) { self.name = name }

  /// Deeper documents are refused (no configuration nests more than a few levels).
  package static let maximumDepth = 64

  /// Why a document could not be read.
  package struct Invalid: Error, Equatable {
    package let line: Int
    package let reason: String

    package init(line: Int, reason: String) {
      self.line = line
      self.reason = reason
    }
  }

  /// The document's root element.
  package static func parse(_ text: String) throws(Invalid) -> MarkupElement {
    let roots = try elements(text)
    if roots.count > 1 { throw Invalid(line: roots[1].line, reason: "a second root element <\(roots[1].name)>") }
    guard let root = roots.first else { throw Invalid(line: 1, reason: "no root element") }
    return root
  }

  /// The elements at the top of `text`, in order: a document has one, a fragment pasted from a
  /// larger one may have several (the caller says which it accepts).
  package static func elements(_ text: String) throws(Invalid) -> [MarkupElement] {
    var reader = Reader(Array(text.utf8))
    return try reader.document()
  }

  /// This element and every element under it, depth first, each with its ancestors (nearest
  /// last).
  package func walk(_ visit: (MarkupElement, [MarkupElement]) -> Void) {
    var pending: [(MarkupElement, [MarkupElement])] = [(self, [])]
    while let (element, ancestors) = pending.popLast() {
      visit(element, ancestors)
      pending += element.children.reversed().map { ($0, ancestors + [element]) }
    }
  }
}

extension MarkupElement {
  fileprivate struct Reader {
    let bytes: [UInt8]
    var index = 0
    var line = 1

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(Invalid) -> [MarkupElement] {
      // A byte-order mark is not text.
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
      var open: [MarkupElement] = []
      var roots: [MarkupElement] = []
      while index < bytes.count {
        if peek("<!--") {
          try skip(past: "-->", what: "a comment")
        } else if peek("<?") {
          try skip(past: "?>", what: "a processing instruction")
        } else if peek("<!DOCTYPE") {
          // Skipped unread, unless it has an internal subset (`[`), where entities are declared.
          let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.count
          guard !bytes[index..<end].contains(UInt8(ascii: "[")) else {
            throw invalid("a document type declaration is not read (nor any entity it would declare)")
          }
          try skip(past: ">", what: "a document type declaration")
        } else if peek("<!ENTITY") {
          throw invalid("a document type declaration is not read (nor any entity it would declare)")
        } else if peek("<![CDATA[") {
          guard !open.isEmpty else { throw invalid("CDATA outside the root element") }
          index += 9
          let start = index
          try skip(past: "]]>", what: "a CDATA section")
          open[open.count - 1].text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
        } else if peek("</") {
          index += 2
          let name = try self.name()
          skipSpace()
          guard take(">") else { throw invalid("the end tag </\(name) does not close") }
          guard let element = open.popLast(), element.name == name else {
            throw invalid("the end tag </\(name)> matches no open element")
          }
          if open.isEmpty {
            roots.append(element)
          } else {
            open[open.count - 1].children.append(element)
          }
        } else if peek("<") {
          index += 1
          var element = MarkupElement(name: try name())
          element.line = line
          let selfClosing = try attributes(of: &element)
          guard open.count < MarkupElement.maximumDepth else {
            throw invalid("elements nest deeper than \(MarkupElement.maximumDepth)")
          }
          if selfClosing {
            if open.isEmpty {
              roots.append(element)
            } else {
              open[open.count - 1].children.append(element)
            }
          } else {
            open.append(element)
          }
        } else {
          let text = try self.text()
          if open.isEmpty {
            guard text.allSatisfy(\.isWhitespace) else { throw invalid("text outside the root element") }
          } else {
            open[open.count - 1].text += text
          }
        }
      }
      if let unclosed = open.last { throw invalid("<\(unclosed.name)> is never closed") }
      return roots
    }

    /// Reads attributes up to `>` or `/>`; true for `/>`.
    mutating func attributes(of element: inout MarkupElement) throws(Invalid) -> Bool {
      while true {
        let spaced = skipSpace()
        if take("/>") { return true }
        if take(">") { return false }
        guard spaced, index < bytes.count else { throw invalid("the tag <\(element.name) does not close") }
        let name = try self.name()
        skipSpace()
        guard take("=") else { throw invalid("the attribute \(name) of <\(element.name)> has no value") }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
          throw invalid("the value of \(name) in <\(element.name)> is not quoted")
        }
        let quote = bytes[index]
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != quote {
          guard bytes[index] != UInt8(ascii: "<") else { throw invalid("a \"<\" in the value of \(name)") }
          count(bytes[index])
          index += 1
        }
        guard index < bytes.count else { throw invalid("the value of \(name) in <\(element.name)> does not end") }
        let value = try decode(bytes[start..<index])
        index += 1
        guard element.attributes.updateValue(value, forKey: name) == nil else {
          throw invalid("the attribute \(name) appears twice in <\(element.name)>")
        }
      }
    }

    /// Text up to the next `<`, its references decoded.
    mutating func text() throws(Invalid) -> String {
      let start = index
      while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
        count(bytes[index])
        index += 1
      }
      return try decode(bytes[start..<index])
    }

    /// An element or attribute name (a prefix included).
    mutating func name() throws(Invalid) -> String {
      let start = index
      while index < bytes.count, Self.isNameByte(bytes[index], first: index == start) { index += 1 }
      guard index > start else { throw invalid("a tag without a name") }
      return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
        UInt8(ascii: ":"), 0x80...:
        return true
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): return !first
      default: return false
      }
    }

    /// `raw` with the predefined entities and character references replaced. Found by their
    /// bytes, not by characters: a combining mark after `&` or `;` makes one character of the
    /// two, which a search for the character "&" does not find.
    func decode(_ raw: ArraySlice<UInt8>) throws(Invalid) -> String {
      guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
      var decoded = ""
      var rest = raw
      while let amp = rest.firstIndex(of: UInt8(ascii: "&")) {
        decoded += String(decoding: rest[..<amp], as: UTF8.self)
        guard let semicolon = rest[amp...].prefix(13).firstIndex(of: UInt8(ascii: ";")) else {
          throw invalid("an \"&\" that starts no reference")
        }
        let entity = String(decoding: rest[(amp + 1)..<semicolon], as: UTF8.self)
        switch entity {
        case "amp": decoded += "&"
        case "lt": decoded += "<"
        case "gt": decoded += ">"
        case "quot": decoded += "\""
        case "apos": decoded += "'"
        default:
          let hex = entity.hasPrefix("#x")
          guard entity.hasPrefix("#"), let value = UInt32(entity.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
            let scalar = Unicode.Scalar(value), value != 0
          else { throw invalid("the entity &\(entity); is not one XML predefines") }
          decoded.unicodeScalars.append(scalar)
        }
        rest = rest[(semicolon + 1)...]
      }
      return decoded + String(decoding: rest, as: UTF8.self)
    }

    func peek(_ literal: StaticString) -> Bool {
      let count = literal.utf8CodeUnitCount
      guard bytes.count - index >= count else { return false }
      return literal.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
    }

    mutating func take(_ literal: StaticString) -> Bool {
      guard peek(literal) else { return false }
      index += literal.utf8CodeUnitCount
      return true
    }

    /// Skips past `end`, counting lines.
    mutating func skip(past end: StaticString, what: String) throws(Invalid) {
      let startLine = line
      while index < bytes.count {
        if take(end) { return }
        count(bytes[index])
        index += 1
      }
      throw Invalid(line: startLine, reason: "\(what) does not end")
    }

    @discardableResult
    mutating func skipSpace() -> Bool {
      let start = index
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
        count(bytes[index])
        index += 1
      }
      return index > start
    }

    mutating func count(_ byte: UInt8) { if byte == 0x0A { line += 1 } }

    func invalid(_ reason: String) -> Invalid { Invalid(line: line, reason: reason) }
  }
}
