/// One DER element: its tag and where its content lies in the input.
struct DERElement {
  let tag: UInt8
  let headerStart: Int
  let contentStart: Int
  let end: Int
  var content: Range<Int> { contentStart..<end }
  var whole: Range<Int> { headerStart..<end }
}

/// A strict DER reader over a byte buffer: definite, minimally encoded lengths; single-byte tags;
/// every element must lie inside its parent. Errors name the element being read.
struct DERReader {
  private var cursor: ByteCursor<UnsafeBufferPointer<UInt8>>
  var bytes: UnsafeBufferPointer<UInt8> { cursor.bytes }
  var position: Int { cursor.position }
  var end: Int { cursor.end }

  static let sequence: UInt8 = 0x30
  static let set: UInt8 = 0x31
  static let integer: UInt8 = 0x02
  static let bitString: UInt8 = 0x03
  static let octetString: UInt8 = 0x04
  static let objectIdentifier: UInt8 = 0x06
  static let boolean: UInt8 = 0x01
  static let utcTime: UInt8 = 0x17
  static let generalizedTime: UInt8 = 0x18

  init(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
    cursor = ByteCursor(bytes, range: range)
  }

  /// A reader over the content of `element`.
  func reader(inside element: DERElement) -> DERReader {
    DERReader(bytes, range: element.content)
  }

  var isAtEnd: Bool { cursor.isAtEnd }

  var nextTag: UInt8? { cursor.current }

  /// Reads the next element, whatever its tag.
  mutating func readAny(_ field: String) throws(CNCertificateError) -> DERElement {
    let start = cursor.position
    guard let tag = cursor.next() else { throw .truncated(field: field, offset: cursor.position) }
    guard tag & 0x1F != 0x1F else {
      throw .unexpectedTag(field: field, expected: "a single-byte tag", found: tag, offset: start)
    }
    guard let first = cursor.next() else { throw .truncated(field: field, offset: cursor.position) }
    var length = 0
    if first < 0x80 {
      length = Int(first)
    } else {
      let count = Int(first & 0x7F)
      guard count >= 1, count <= 4 else { throw .invalidLength(field: field, offset: start) }
      guard cursor.remaining >= count else { throw .truncated(field: field, offset: cursor.position) }
      guard cursor.current != 0 else { throw .invalidLength(field: field, offset: start) }
      for _ in 0..<count { length = length << 8 | Int(cursor.next() ?? 0) }
      guard length >= 0x80 else { throw .invalidLength(field: field, offset: start) }
    }
    guard let content = cursor.take(length) else { throw .truncated(field: field, offset: cursor.position) }
    return DERElement(tag: tag, headerStart: start, contentStart: content.lowerBound, end: content.upperBound)
  }

  /// Reads the next element and requires `tag`.
  mutating func read(_ tag: UInt8, _ field: String) throws(CNCertificateError) -> DERElement {
    guard let found = nextTag else { throw .truncated(field: field, offset: position) }
    guard found == tag else {
      throw .unexpectedTag(field: field, expected: Self.describe(tag), found: found, offset: position)
    }
    return try readAny(field)
  }

  /// Reads the next element when it has `tag`, else nothing.
  mutating func readOptional(_ tag: UInt8, _ field: String) throws(CNCertificateError) -> DERElement? {
    nextTag == tag ? try readAny(field) : nil
  }

  /// Requires that nothing is left.
  func expectEnd(_ field: String) throws(CNCertificateError) {
    guard isAtEnd else { throw .trailingData(field: field, offset: position) }
  }

  func contentEquals(_ element: DERElement, _ expected: [UInt8]) -> Bool {
    guard element.end - element.contentStart == expected.count else { return false }
    for index in 0..<expected.count where bytes[element.contentStart + index] != expected[index] { return false }
    return true
  }

  static func describe(_ tag: UInt8) -> String {
    switch tag {
    case sequence: return "a SEQUENCE"
    case set: return "a SET"
    case integer: return "an INTEGER"
    case bitString: return "a BIT STRING"
    case octetString: return "an OCTET STRING"
    case objectIdentifier: return "an OBJECT IDENTIFIER"
    case boolean: return "a BOOLEAN"
    case utcTime: return "a UTCTime"
    case generalizedTime: return "a GeneralizedTime"
    default: return "tag 0x" + String(tag, radix: 16, uppercase: true)
    }
  }
}
