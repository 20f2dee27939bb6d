// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import Foundation

/// HTTP/1.1 framing over one connection (TLS or plain): requests with Content-Length or chunked
/// bodies, responses with Content-Length.
struct HTTPConnection {
  /// Reads into the buffer; returns the byte count, or 0 or less when the connection ends.
  let read: (UnsafeMutableRawBufferPointer) -> Int
  /// Writes bytes; returns the count written, or 0 or less on failure.
  let write: (UnsafeRawBufferPointer) -> Int
  private var buffer: [UInt8] = []

  static let maximumHeadSize = 64 * 1024
  static let maximumBodySize = 16 * 1024 * 1024

  init(read: @escaping (UnsafeMutableRawBufferPointer) -> Int, write: @escaping (UnsafeRawBufferPointer) -> Int) {
    self.read = read
    self.write = write
  }

  mutating func readRequest(serverName: String?) -> LocalTLSServer.Request? {
    var headEnd: Int?
    while headEnd == nil {
      headEnd = buffer.firstRange(of: [13, 10, 13, 10])?.upperBound
      if headEnd == nil {
        guard buffer.count < Self.maximumHeadSize, fill() else { return nil }
      }
    }
    let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
    buffer.removeFirst(headEnd!)
    let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
    guard let requestLine = lines.first else { return nil }
    let parts = requestLine.split(separator: " ")
    guard parts.count == 3 else { return nil }
    let headers = lines.dropFirst().compactMap { line -> LocalTLSServer.Header? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return LocalTLSServer.Header(
        String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    func value(_ name: String) -> String? {
      headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
    let body: Data
    if value("Transfer-Encoding")?.lowercased() == "chunked" {
      guard let chunked = readChunkedBody() else { return nil }
      body = chunked
    } else {
      let length = value("Content-Length").flatMap { Int($0) } ?? 0
      guard length >= 0, length <= Self.maximumBodySize, let bytes = take(length) else { return nil }
      body = bytes
    }
    return LocalTLSServer.Request(
      method: String(parts[0]), target: String(parts[1]), headers: headers, body: body, serverName: serverName)
  }

  /// A chunked body: hexadecimal sizes, each chunk followed by CRLF, ending with a zero size and
  /// (ignored) trailers.
  private mutating func readChunkedBody() -> Data? {
    var body = Data()
    while true {
      guard let line = readLine(), let size = Int(line.split(separator: ";").first ?? "", radix: 16), size >= 0,
        body.count + size <= Self.maximumBodySize
      else { return nil }
      if size == 0 {
        while let trailer = readLine() {
          if trailer.isEmpty { return body }
        }
        return nil
      }
      guard let chunk = take(size), readLine() == "" else { return nil }
      body.append(chunk)
    }
  }

  /// The next line, without its CRLF.
  private mutating func readLine() -> String? {
    while true {
      if let end = buffer.firstRange(of: [13, 10]) {
        let line = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeFirst(end.upperBound)
        return line
      }
      guard buffer.count < Self.maximumHeadSize, fill() else { return nil }
    }
  }

  /// The next `count` bytes.
  private mutating func take(_ count: Int) -> Data? {
    while buffer.count < count {
      guard fill() else { return nil }
    }
    defer { buffer.removeFirst(count) }
    return Data(buffer[..<count])
  }

  private mutating func fill() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    let count = chunk.withUnsafeMutableBytes { read($0) }
    guard count > 0 else { return false }
    buffer.append(contentsOf: chunk[..<count])
    return true
  }

  func write(_ response: LocalTLSServer.Response, keepAlive: Bool) -> Bool {
    var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
    for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
    head += "Content-Length: \(response.body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
    guard let pacing = response.pacing, pacing.pieceSize > 0 else { return write(bytes: Array(head.utf8) + response.body) }
    guard write(bytes: Array(head.utf8)) else { return false }
    for (index, start) in stride(from: 0, to: response.body.count, by: pacing.pieceSize).enumerated() {
      if index > 0 { pacing.beforePiece(index) }
      guard write(bytes: Array(response.body[start..<min(start + pacing.pieceSize, response.body.count)])) else { return false }
    }
    return true
  }

  /// Writes all of `bytes`; false when the connection fails first.
  func write(bytes: [UInt8]) -> Bool { Self.writeAll(bytes, with: write) }

  /// Hands `bytes` to `write` until all are taken; false when it takes none. For the HTTP/1.1
  /// and HTTP/2 connections alike.
  static func writeAll(_ bytes: [UInt8], with write: (UnsafeRawBufferPointer) -> Int) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { write($0) }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  private static func reason(_ status: Int) -> String {
    switch status {
    case 200: return "OK"
    case 201: return "Created"
    case 204: return "No Content"
    case 301: return "Moved Permanently"
    case 302: return "Found"
    case 303: return "See Other"
    case 307: return "Temporary Redirect"
    case 308: return "Permanent Redirect"
    case 400: return "Bad Request"
    case 404: return "Not Found"
    case 500: return "Internal Server Error"
    default: return "Status"
    }
  }
}
#endif
