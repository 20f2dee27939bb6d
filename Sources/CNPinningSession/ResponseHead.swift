import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Collects a response's status line and header fields as libcurl hands them over line by line.
/// A new status line (after a `100 Continue`, say) starts over.
struct ResponseHead {
  private(set) var statusCode: Int?
  private(set) var httpVersion = "HTTP/1.1"
  private(set) var fields: [(name: String, value: String)] = []

  mutating func consume(line raw: String) {
    let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\r\n"))
    guard !line.isEmpty else { return }
    if line.hasPrefix("HTTP/") {
      let parts = line.split(separator: " ", maxSplits: 2)
      statusCode = parts.count >= 2 ? Int(parts[1]) : nil
      httpVersion = String(parts[0])
      fields = []
    } else if let colon = line.firstIndex(of: ":") {
      let name = line[..<colon].trimmingCharacters(in: .whitespaces)
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      fields.append((name, value))
    }
  }

  /// The header fields with repeated names joined by ", " (as URLSession reports them).
  var headerFields: [String: String] {
    var result: [String: String] = [:]
    var canonicalNames: [String: String] = [:]
    for (name, value) in fields {
      let key = canonicalNames[name.lowercased(), default: name]
      canonicalNames[name.lowercased()] = key
      result[key] = result[key].map { "\($0), \(value)" } ?? value
    }
    return result
  }

  func response(for url: URL) -> HTTPURLResponse? {
    guard let statusCode else { return nil }
    return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
  }
}
