/// A read position in untrusted bytes, shared by the readers of JSON, XML and binary property
/// lists, DER and ISO 8601 dates: every read checks the bounds, so no reader indexes past its
/// input or its element.
///
/// `Bytes` is whatever the reader holds (an array, or a buffer borrowed for the length of a
/// parse); reads stop at `end`, which may lie before the buffer's end (a DER element's content).
struct ByteCursor<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
  let bytes: Bytes
  var position: Int
  /// Where reading stops.
  let end: Int

  init(_ bytes: Bytes, range: Range<Int>? = nil) {
    self.bytes = bytes
    position = range?.lowerBound ?? bytes.startIndex
    end = range?.upperBound ?? bytes.endIndex
  }

  var isAtEnd: Bool { position >= end }
  /// Bytes left before `end`.
  var remaining: Int { max(0, end - position) }
  /// The byte at the position; nil at the end.
  var current: UInt8? { position < end ? bytes[position] : nil }

  /// The byte `offset` places ahead; nil past the end.
  func peek(_ offset: Int) -> UInt8? {
    position + offset < end ? bytes[position + offset] : nil
  }

  /// Reads one byte; nil at the end.
  mutating func next() -> UInt8? {
    guard position < end else { return nil }
    defer { position += 1 }
    return bytes[position]
  }

  /// Moves past `byte` if it is next.
  mutating func consume(_ byte: UInt8) -> Bool {
    guard current == byte else { return false }
    position += 1
    return true
  }

  /// Whether `literal`'s bytes come next (without moving).
  func starts(with literal: some Sequence<UInt8>) -> Bool {
    var index = position
    for byte in literal {
      guard index < end, bytes[index] == byte else { return false }
      index += 1
    }
    return true
  }

  /// Moves past `literal` if it comes next.
  mutating func consume(_ literal: some Collection<UInt8>) -> Bool {
    guard starts(with: literal) else { return false }
    position += literal.count
    return true
  }

  /// Moves past the bytes that satisfy `predicate`; returns how many there were.
  @discardableResult
  mutating func skip(while predicate: (UInt8) -> Bool) -> Int {
    let start = position
    while position < end, predicate(bytes[position]) { position += 1 }
    return position - start
  }

  /// Moves past the next `count` bytes and returns where they lie; nil (not moving) when fewer
  /// are left.
  mutating func take(_ count: Int) -> Range<Int>? {
    guard count >= 0, remaining >= count else { return nil }
    defer { position += count }
    return position..<(position + count)
  }

  // MARK: - Random access (tables of offsets)

  /// The range of `count` bytes at `start` when it lies inside the readable bytes; else nil.
  func range(at start: Int, count: Int) -> Range<Int>? {
    guard start >= bytes.startIndex, count >= 0, start <= end, count <= end - start else { return nil }
    return start..<(start + count)
  }

  /// The unsigned big-endian number in the `size` (at most 8) bytes at `start`; nil when they do
  /// not lie inside the readable bytes.
  func bigEndian(at start: Int, size: Int) -> UInt64? {
    guard size <= 8, let range = range(at: start, count: size) else { return nil }
    var value: UInt64 = 0
    for index in range { value = value << 8 | UInt64(bytes[index]) }
    return value
  }

  // MARK: - Text

  /// Moves past a UTF-8 byte order mark at the position.
  mutating func skipByteOrderMark() { _ = consume([0xEF, 0xBB, 0xBF]) }

  /// Moves past JSON and XML whitespace: space, tab, line feed, carriage return.
  mutating func skipWhitespace() {
    skip { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
  }

  /// Reads exactly `count` ASCII digits as a decimal number; nil (not moving) otherwise.
  mutating func decimal(digits count: Int) -> Int? {
    guard remaining >= count else { return nil }
    var value = 0
    for index in position..<(position + count) {
      let byte = bytes[index]
      guard byte >= 0x30, byte <= 0x39 else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    position += count
    return value
  }

  /// The 1-based line and column of the position (columns count bytes), for error messages.
  var lineAndColumn: (line: Int, column: Int) {
    var line = 1
    var lineStart = bytes.startIndex
    var index = bytes.startIndex
    while index < min(position, bytes.endIndex) {
      if bytes[index] == 0x0A {
        line += 1
        lineStart = index + 1
      }
      index += 1
    }
    return (line, position - lineStart + 1)
  }

  /// The bytes from `start` to the position, as text (invalid UTF-8 repaired).
  func text(from start: Int) -> String {
    String(decoding: bytes[start..<position], as: UTF8.self)
  }
}
