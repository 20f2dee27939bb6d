// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import Foundation

/// Just enough HTTP/2 (RFC 9113) to answer a client and to break the protocol on purpose: frames
/// in and out, SETTINGS and PING acknowledged, every stream answered `200` with `hello`. The
/// client's header blocks are not decoded (no HPACK decoder): requests are recorded with their
/// body only. Response header blocks are written as HPACK literals without Huffman coding.
struct HTTP2Connection {
  enum FrameType: UInt8 {
    case data = 0
    case headers = 1
    case priority = 2
    case resetStream = 3
    case settings = 4
    case pushPromise = 5
    case ping = 6
    case goAway = 7
    case windowUpdate = 8
    case continuation = 9
  }

  struct Frame {
    var type: UInt8
    var flags: UInt8
    var stream: UInt32
    var payload: [UInt8]
  }

  static let endStream: UInt8 = 0x1
  static let endHeaders: UInt8 = 0x4
  static let ack: UInt8 = 0x1
  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
  static let maximumFrameSize = 16_384

  let read: (UnsafeMutableRawBufferPointer) -> Int
  let write: (UnsafeRawBufferPointer) -> Int
  private var buffer: [UInt8] = []

  init(read: @escaping (UnsafeMutableRawBufferPointer) -> Int, write: @escaping (UnsafeRawBufferPointer) -> Int) {
    self.read = read
    self.write = write
  }

  /// Whether bytes already read wait in the buffer.
  var hasBufferedInput: Bool { !buffer.isEmpty }

  /// Reads the client's preface; false when the connection does not start with it.
  mutating func readPreface() -> Bool {
    guard let bytes = take(Self.preface.count) else { return false }
    return bytes == Self.preface
  }

  /// The next frame, or nil when the connection ends or sends a frame over 1 MiB.
  mutating func readFrame() -> Frame? {
    guard let header = take(9) else { return nil }
    let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
    guard length <= 1 << 20, let payload = take(length) else { return nil }
    let stream = (UInt32(header[5]) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8])) & 0x7FFF_FFFF
    return Frame(type: header[3], flags: header[4], stream: stream, payload: payload)
  }

  private mutating func take(_ count: Int) -> [UInt8]? {
    while buffer.count < count {
      var chunk = [UInt8](repeating: 0, count: 16 * 1024)
      let read = chunk.withUnsafeMutableBytes { self.read($0) }
      guard read > 0 else { return nil }
      buffer.append(contentsOf: chunk[..<read])
    }
    defer { buffer.removeFirst(count) }
    return Array(buffer[..<count])
  }

  // MARK: - Writing

  static func frame(_ type: FrameType, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
    let length = payload.count
    return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type.rawValue, flags]
      + bigEndian(stream) + payload
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  /// SETTINGS with (identifier, value) pairs.
  static func settings(_ values: [(UInt16, UInt32)] = []) -> [UInt8] {
    frame(.settings, values.flatMap { [UInt8($0.0 >> 8), UInt8($0.0 & 0xFF)] + bigEndian($0.1) })
  }

  static func goAway(lastStream: UInt32, error: UInt32 = 0) -> [UInt8] {
    frame(.goAway, bigEndian(lastStream) + bigEndian(error))
  }

  static func resetStream(_ stream: UInt32, error: UInt32) -> [UInt8] { frame(.resetStream, stream: stream, bigEndian(error)) }

  /// A response head: `:status` and the fields (lower-case names), in HEADERS and as many
  /// CONTINUATION frames as the block needs.
  static func headers(stream: UInt32, status: Int, fields: [(String, String)], endStream: Bool) -> [UInt8] {
    var block: [UInt8] = []
    for (name, value) in [(":status", String(status))] + fields {
      block.append(0x00)  // literal header field without indexing, new name
      block += integer(name.utf8.count, prefixBits: 7) + Array(name.utf8)
      block += integer(value.utf8.count, prefixBits: 7) + Array(value.utf8)
    }
    var frames: [UInt8] = []
    var offset = 0
    repeat {
      let end = min(offset + maximumFrameSize, block.count)
      let last = end == block.count
      let type: FrameType = offset == 0 ? .headers : .continuation
      let flags = (last ? endHeaders : 0) | (offset == 0 && endStream ? Self.endStream : 0)
      frames += frame(type, flags: flags, stream: stream, Array(block[offset..<end]))
      offset = end
    } while offset < block.count
    return frames
  }

  /// DATA frames carrying `body` (the last with END_STREAM when `endStream`).
  static func data(stream: UInt32, _ body: [UInt8], endStream: Bool) -> [UInt8] {
    var frames: [UInt8] = []
    var offset = 0
    repeat {
      let end = min(offset + maximumFrameSize, body.count)
      let flags = end == body.count && endStream ? Self.endStream : 0
      frames += frame(.data, flags: flags, stream: stream, Array(body[offset..<end]))
      offset = end
    } while offset < body.count
    return frames
  }

  /// An HPACK integer (RFC 7541 §5.1) with an N-bit prefix, the prefix's other bits zero.
  static func integer(_ value: Int, prefixBits: Int) -> [UInt8] {
    let limit = (1 << prefixBits) - 1
    guard value >= limit else { return [UInt8(value)] }
    var bytes = [UInt8(limit)]
    var rest = value - limit
    while rest >= 128 {
      bytes.append(UInt8(rest % 128 + 128))
      rest /= 128
    }
    bytes.append(UInt8(rest))
    return bytes
  }

  /// Writes all of `bytes`; false when the connection fails first.
  func send(_ bytes: [UInt8]) -> Bool { HTTPConnection.writeAll(bytes, with: write) }
}
#endif
