import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects a response's status line and header lines as libcurl hands them over, as bytes, and
/// parses them once when the response is complete. A new status line (after a `100 Continue`,
/// say) starts over.
package struct ResponseHead {
  private var bytes: [UInt8] = []
  /// Whether the last coding of the last `Transfer-Encoding` field is `chunked` (RFC 9112 §6.3),
  /// noted as lines arrive: libcurl reports how long a body is, not whether it came in chunks.
  /// Where libcurl sees chunks (a `chunked` anywhere in the field) and this does not, the body
  /// is only held to more (its end must be a close_notify); the reverse cannot happen.
  package private(set) var endsChunked = false
  /// Whether some `Transfer-Encoding` field names `chunked` (libcurl then reads chunks): with
  /// ``endsChunked`` false, the two framings disagree, and a refusal says that rather than "cut".
  package private(set) var namedChunked = false
  /// Where in `bytes` the first `Content-Length` value is, and the first value that differs from
  /// it (RFC 9110 §8.6: a list of identical values is one length; differing ones make the framing
  /// invalid). Places, not strings: a head is copied as it goes to the task, and a copy is then one
  /// retain.
  private var contentLength: Range<Int>?
  private var conflictingContentLength: (first: Range<Int>, other: Range<Int>)?

  /// The first `Content-Length` value and the first that differs from it, when two differ.
  package var conflictingContentLengths: (first: String, other: String)? {
    conflictingContentLength.map { (value(at: $0.first), value(at: $0.other)) }
  }

  /// The most bytes a response head may have (status line and fields).
  package static let maximumSize = 256 * 1024
  /// What a head reserves on its first line: with the array's 32-byte header, an allocation
  /// glibc's per-thread cache serves (up to 1,032 bytes; 1,024 here went to the arena every time).
  private static let typicalSize = 960

  /// An empty head, before the first line.
  package init() {}

  /// Adds one header line (with its line ending) as received; false when the head would exceed
  /// ``maximumSize``.
  package mutating func consume(line: UnsafeRawBufferPointer) -> Bool {
    // By the first letter, in any case: most lines are none of the three.
    let first = line.first.map { $0 | 0x20 }
    if first == UInt8(ascii: "h"), line.starts(with: Self.statusPrefix) {
      unknownVersion = !Self.knownVersions.contains { line.starts(with: $0) }
      bytes.removeAll(keepingCapacity: true)
      endsChunked = false
      namedChunked = false
      contentLength = nil
      conflictingContentLength = nil
    }
    guard bytes.count + line.count <= Self.maximumSize else { return false }
    let offset = bytes.count
    // Room for a typical head at once, rather than growing it four times as the lines come.
    if bytes.capacity == 0 { bytes.reserveCapacity(Self.typicalSize) }
    bytes.append(contentsOf: line)
    if first == UInt8(ascii: "c"), Self.starts(line, with: Self.contentLengthName) {
      noteContentLength(line.dropFirst(Self.contentLengthName.count), at: offset)
    } else if first == UInt8(ascii: "t"), Self.starts(line, with: Self.transferEncodingName) {
      let value = line.dropFirst(Self.transferEncodingName.count)
      if endsChunked || Self.namesChunked(value) { namedChunked = true }
      endsChunked = Self.lastCodingIsChunked(value)
    }
    return true
  }

  private static let statusPrefix = Array("HTTP/".utf8)
  /// The versions a status line may name: HTTP/1.0 and 1.1, and the "HTTP/2" libcurl writes for
  /// an HTTP/2 response. libcurl 7.88 refuses others itself; 8.17 takes "HTTP/3.7 200" on an
  /// HTTP/1.1 connection for a 200, so the session checks.
  private static let knownVersions = ["HTTP/1.0 ", "HTTP/1.1 ", "HTTP/2 "].map { Array($0.utf8) }
  /// Whether the latest status line names a version other than those.
  package private(set) var unknownVersion = false
  private static let contentLengthName = Array("content-length:".utf8)
  private static let transferEncodingName = Array("transfer-encoding:".utf8)
  private static let chunked = Array("chunked".utf8)

  /// Whether `line` starts with the lower-case field `name` (with its colon), in any case.
  private static func starts(_ line: UnsafeRawBufferPointer, with name: [UInt8]) -> Bool {
    guard line.count >= name.count else { return false }
    // Setting bit 0x20 lower-cases letters and leaves "-" and ":" as they are.
    for index in name.indices where line[index] | 0x20 != name[index] { return false }
    return true
  }

  /// Whether some coding of a Transfer-Encoding value is chunked.
  private static func namesChunked(_ value: Slice<UnsafeRawBufferPointer>) -> Bool {
    var codings = Elements(value)
    while let coding = codings.next() {
      if isChunked(coding) { return true }
    }
    return false
  }

  /// Whether the last of the comma-separated codings in a Transfer-Encoding value is chunked.
  private static func lastCodingIsChunked(_ value: Slice<UnsafeRawBufferPointer>) -> Bool {
    var codings = Elements(value)
    var last = value[value.startIndex..<value.startIndex]
    while let coding = codings.next() { last = coding }
    return isChunked(last)
  }

  private static func isChunked(_ coding: Slice<UnsafeRawBufferPointer>) -> Bool {
    coding.count == chunked.count && zip(coding, chunked).allSatisfy { $0 | 0x20 == $1 }
  }

  /// Notes the values of one `Content-Length` field (comma-separated, trimmed), of the line added
  /// to `bytes` at `offset`, and the first that differs from the first value seen. Values are
  /// compared as written ("05" differs from "5") and as the head's readers decode them (invalid
  /// UTF-8 repaired), so that a refusal never names two values that look alike.
  private mutating func noteContentLength(_ field: Slice<UnsafeRawBufferPointer>, at offset: Int) {
    var values = Elements(field)
    while let element = values.next() {
      let place = (element.startIndex + offset)..<(element.endIndex + offset)
      guard let first = contentLength else {
        contentLength = place
        continue
      }
      guard conflictingContentLength == nil, !bytes[first].elementsEqual(bytes[place]), value(at: first) != value(at: place)
      else { continue }
      conflictingContentLength = (first, place)
    }
  }

  /// The value at `place` in `bytes`, decoded.
  private func value(at place: Range<Int>) -> String { String(decoding: bytes[place], as: UTF8.self) }

  /// The comma-separated elements of a field's value in order, empty ones included, each without
  /// surrounding white space: read in place, as every response's framing fields are.
  private struct Elements {
    let value: Slice<UnsafeRawBufferPointer>
    private var start: Int
    private var ended = false

    init(_ value: Slice<UnsafeRawBufferPointer>) {
      self.value = value
      start = value.startIndex
    }

    mutating func next() -> Slice<UnsafeRawBufferPointer>? {
      guard !ended else { return nil }
      var end = start
      while end < value.endIndex, value[end] != UInt8(ascii: ",") { end += 1 }
      var lower = start
      var upper = end
      while lower < upper, isSpace(value[lower]) { lower += 1 }
      while upper > lower, isSpace(value[upper - 1]) { upper -= 1 }
      if end == value.endIndex { ended = true } else { start = end + 1 }
      return value[lower..<upper]
    }
  }

  /// The status code, HTTP version and header fields, or nil without a status line. Repeated
  /// field names are joined by ", " (as URLSession reports them), under the first spelling seen.
  /// One pass over the bytes: every response of a session comes through here.
  func parsed() -> (statusCode: Int, httpVersion: String, fields: [String: String])? {
    bytes.withUnsafeBufferPointer { head -> (statusCode: Int, httpVersion: String, fields: [String: String])? in
      var lines = Lines(head)
      guard let status = lines.next(), let (statusCode, version) = Self.statusLine(head, status) else { return nil }
      let httpVersion = String(decoding: head[version], as: UTF8.self)

      // Repeated names (in any case) are joined in order of arrival under the first spelling:
      // linear in the size of the head. The first spelling of each name, by its lower-case form,
      // is kept only from the first name with an upper-case letter on: until then (and in every
      // HTTP/2 head) each name is its own lower-case form and `fields` alone finds repeats.
      // At most one field per line: the table is made at its size rather than grown as it fills
      // (up to 64 fields; beyond, it grows, so that a head of bare lines reserves nothing much).
      var fields = [String: String](minimumCapacity: min(Self.lineCount(head), 64))
      var spellings: [String: String]?
      while let line = lines.next() {
        guard let colon = Self.index(of: UInt8(ascii: ":"), in: head, line) else { continue }
        let nameRange = Self.trimmed(head, line.lowerBound..<colon)
        let name = String(decoding: head[nameRange], as: UTF8.self)
        let value = String(decoding: head[Self.trimmed(head, (colon + 1)..<line.upperBound)], as: UTF8.self)
        let hasUpperCase = head[nameRange].contains(where: FieldName.isUpperCase)
        if hasUpperCase, spellings == nil {
          spellings = Dictionary(uniqueKeysWithValues: fields.keys.map { ($0, $0) })
        }
        guard spellings != nil else {
          // The name is its own spelling: hashed once when it is new, as most are.
          if let earlier = fields.updateValue(value, forKey: name) { fields[name] = earlier + ", " + value }
          continue
        }
        let key = hasUpperCase ? FieldName.key(head[nameRange]) : name
        if let spelling = spellings?[key] {
          fields[spelling, default: ""] += ", " + value
        } else {
          spellings?[key] = name
          fields[name] = value
        }
      }
      return (statusCode, httpVersion, fields)
    }
  }

  /// The status code alone, read from the status line; nil without a valid one.
  package var statusCode: Int? {
    bytes.withUnsafeBufferPointer { head in
      var lines = Lines(head)
      return lines.next().flatMap { Self.statusLine(head, $0)?.statusCode }
    }
  }

  /// The value of the field `name` (ASCII, any case) as ``parsed()`` would give it (repeats joined
  /// by ", "), read straight from the bytes; nil without one or without a status line.
  package func value(forField name: String) -> String? {
    let wanted = Array(name.utf8)
    return bytes.withUnsafeBufferPointer { head -> String? in
      var lines = Lines(head)
      guard let status = lines.next(), Self.statusLine(head, status) != nil else { return nil }
      var value: String?
      while let line = lines.next() {
        guard let colon = Self.index(of: UInt8(ascii: ":"), in: head, line) else { continue }
        let nameRange = Self.trimmed(head, line.lowerBound..<colon)
        guard nameRange.count == wanted.count,
          zip(head[nameRange], wanted).allSatisfy({ FieldName.lowered($0) == FieldName.lowered($1) })
        else { continue }
        let found = String(decoding: head[Self.trimmed(head, (colon + 1)..<line.upperBound)], as: UTF8.self)
        value = value.map { $0 + ", " + found } ?? found
      }
      return value
    }
  }

  /// "HTTP/1.1 200 OK": the code (100–999) and where the version is, separated by spaces; nil
  /// when the line is not a status line.
  private static func statusLine(_ head: UnsafeBufferPointer<UInt8>, _ status: Range<Int>) -> (
    statusCode: Int, version: Range<Int>
  )? {
    guard head[status].starts(with: statusPrefix), let versionEnd = head[status].firstIndex(of: UInt8(ascii: " ")),
      let codeStart = head[versionEnd..<status.upperBound].firstIndex(where: { $0 != UInt8(ascii: " ") })
    else { return nil }
    let codeEnd = head[codeStart..<status.upperBound].firstIndex(of: UInt8(ascii: " ")) ?? status.upperBound
    guard let statusCode = threeDigitCode(head[codeStart..<codeEnd]) else { return nil }
    return (statusCode, status.lowerBound..<versionEnd)
  }

  /// The number `digits` spell when it is 100–999, read as `Int(String)` reads it (a leading `+`,
  /// leading zeros), without making the string; nil otherwise.
  private static func threeDigitCode(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
    var rest = digits[...]
    if rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
    guard !rest.isEmpty, rest.allSatisfy({ UInt8(ascii: "0") <= $0 && $0 <= UInt8(ascii: "9") }) else { return nil }
    let significant = rest.drop { $0 == UInt8(ascii: "0") }
    guard significant.count == 3 else { return nil }
    return significant.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
  }

  /// The header fields as received, in order and with their repeats (a field without a colon
  /// is skipped, as ``parsed()`` skips it); nil without a status line.
  package func orderedFields() -> [CNHTTPField]? {
    bytes.withUnsafeBufferPointer { head -> [CNHTTPField]? in
      var lines = Lines(head)
      guard let status = lines.next(), head[status].starts(with: Self.statusPrefix) else { return nil }
      // At most one field a line: reserved at once (up to 64) rather than grown as it fills.
      var fields: [CNHTTPField] = []
      fields.reserveCapacity(min(Self.lineCount(head), 64))
      while let line = lines.next() {
        guard let colon = Self.index(of: UInt8(ascii: ":"), in: head, line) else { continue }
        fields.append(
          CNHTTPField(
            name: String(decoding: head[Self.trimmed(head, line.lowerBound..<colon)], as: UTF8.self),
            value: String(decoding: head[Self.trimmed(head, (colon + 1)..<line.upperBound)], as: UTF8.self)))
      }
      return fields
    }
  }

  /// The non-empty lines of a head, without their line endings and surrounding white space.
  private struct Lines {
    let head: UnsafeBufferPointer<UInt8>
    var position = 0
    init(_ head: UnsafeBufferPointer<UInt8>) { self.head = head }

    mutating func next() -> Range<Int>? {
      while position < head.count {
        let end = ResponseHead.index(of: UInt8(ascii: "\n"), in: head, position..<head.count) ?? head.count
        let line = ResponseHead.trimmed(head, position..<end)
        position = end + 1
        if !line.isEmpty { return line }
      }
      return nil
    }
  }

  /// The body length the head states (``CNHTTPResponse/statedLength(of:)``).
  package var expectedBodyLength: Int? {
    orderedFields().flatMap(CNHTTPResponse.statedLength(of:)).flatMap { Int(exactly: $0) }
  }

  /// The response for `url`, or nil without a status line.
  package func response(for url: URL) -> HTTPURLResponse? {
    guard let (statusCode, httpVersion, fields) = parsed() else { return nil }
    return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
  }

  /// How many lines a head has (an upper bound on its fields).
  private static func lineCount(_ head: UnsafeBufferPointer<UInt8>) -> Int {
    var count = 0
    var position = 0
    while let newline = index(of: UInt8(ascii: "\n"), in: head, position..<head.count) {
      count += 1
      position = newline + 1
    }
    return count
  }

  /// Where `byte` first is in `range` of `head`, by memchr: every response's head is scanned
  /// this way, and a byte-at-a-time search cost about 2,000 instructions a request.
  private static func index(of byte: UInt8, in head: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
    guard !range.isEmpty, let base = head.baseAddress,
      let found = memchr(base + range.lowerBound, Int32(byte), range.count)
    else { return nil }
    return UnsafeRawPointer(base).distance(to: found)
  }

  /// `range` without leading and trailing spaces, tabs, CR and LF.
  private static func trimmed(_ head: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
    var lower = range.lowerBound
    var upper = range.upperBound
    while lower < upper, isSpace(head[lower]) { lower += 1 }
    while upper > lower, isSpace(head[upper - 1]) { upper -= 1 }
    return lower..<upper
  }

  private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
}
