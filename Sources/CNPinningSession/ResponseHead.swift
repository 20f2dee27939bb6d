import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects a response's status line and header lines as libcurl hands them over, as bytes, and
/// parses them once when the response is complete. A new status line (after a `100 Continue`,
/// say) starts over.
struct ResponseHead {
  private var bytes: [UInt8] = []

  /// The most bytes a response head may have (status line and fields).
  static let maximumSize = 256 * 1024

  /// Adds one header line (with its line ending) as received; false when the head would exceed
  /// `maximumSize`.
  mutating func consume(line: UnsafeRawBufferPointer) -> Bool {
    if line.starts(with: Self.statusPrefix) { bytes.removeAll(keepingCapacity: true) }
    guard bytes.count + line.count <= Self.maximumSize else { return false }
    bytes.append(contentsOf: line)
    return true
  }

  private static let statusPrefix = Array("HTTP/".utf8)

  /// The status code, HTTP version and header fields, or nil without a status line. Repeated
  /// field names are joined by ", " (as URLSession reports them), under the first spelling seen.
  func parsed() -> (statusCode: Int, httpVersion: String, fields: [String: String])? {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
    guard let statusLine = lines.next().map(Self.trimmed), statusLine.starts(with: Self.statusPrefix) else { return nil }
    let parts = statusLine.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
    guard parts.count >= 2, let statusCode = Int(String(decoding: parts[1], as: UTF8.self)), (100...999).contains(statusCode)
    else { return nil }
    let httpVersion = String(decoding: parts[0], as: UTF8.self)

    // Repeated names are joined in place, in order of arrival: linear in the size of the head.
    var fields: [(name: String, value: String)] = []
    var positions: [String: Int] = [:]
    while let raw = lines.next() {
      let line = Self.trimmed(raw)
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
      let nameBytes = Self.trimmed(line[..<colon])
      let name = String(decoding: nameBytes, as: UTF8.self)
      let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
      let key =
        nameBytes.contains(where: { (0x41...0x5A).contains($0) })
        ? String(decoding: nameBytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self) : name
      if let position = positions[key] {
        fields[position].value += ", " + value
      } else {
        positions[key] = fields.count
        fields.append((name, value))
      }
    }
    var dictionary: [String: String] = [:]
    dictionary.reserveCapacity(fields.count)
    for field in fields { dictionary[field.name] = field.value }
    return (statusCode, httpVersion, dictionary)
  }

  /// The body length the head announces (`Content-Length`); nil when it announces none, or when
  /// the body is content-encoded (its decoded length, which is what arrives, is unknown).
  var expectedBodyLength: Int? {
    guard let fields = parsed()?.fields else { return nil }
    let lowered = Dictionary(fields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    guard lowered["content-encoding"].map({ $0.lowercased() == "identity" }) ?? true else { return nil }
    return lowered["content-length"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
  }

  /// The response for `url`, or nil without a status line.
  func response(for url: URL) -> HTTPURLResponse? {
    guard let (statusCode, httpVersion, fields) = parsed() else { return nil }
    return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
  }

  /// The bytes without leading and trailing spaces, tabs, CR and LF.
  private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
      return bytes[bytes.startIndex..<bytes.startIndex]
    }
    return bytes[first...last]
  }
}
