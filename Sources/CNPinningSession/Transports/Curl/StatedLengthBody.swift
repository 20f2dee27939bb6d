#if CNPINNING_LINUX_BACKEND
import Foundation

/// A streamed request body held to the length libcurl was told (its `Content-Length`): it may
/// end neither short of it (the server would wait for the rest until a timeout) nor past it (the
/// rest would be dropped unseen). libcurl asks for nothing more once the length is sent, so the
/// last byte is held back until the body has said it ends. A file that shrank or grew since it
/// was measured, and an `httpBodyStream` whose `Content-Length` is wrong, fail here;
/// ``ChunkedUpload`` holds a sequence to its length the same way, earlier.
struct StatedLengthBody {
  private let body: any StreamedRequestBody
  /// Bytes handed to libcurl.
  private var sent = 0
  private var lastByte: UInt8?

  init(_ body: any StreamedRequestBody) { self.body = body }

  /// Fills `buffer` with the next bytes, holding the body to its length when it has one.
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyRead {
    guard let length = body.length else { return body.read(into: buffer) }
    let remaining = length - sent
    guard remaining > 1 else { return remaining == 1 ? readLastByte(into: buffer, length: length) : .end }
    let read = body.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, remaining - 1)]))
    switch read {
    case .bytes(let count): sent += count
    case .end: return .failed(.requestBodyEndedShort(sent: sent, length: length))
    case .paused, .failed: break
    }
    return read
  }

  /// The body starts over (libcurl resends it).
  mutating func rewind() -> Bool {
    guard body.rewind() else { return false }
    sent = 0
    lastByte = nil
    return true
  }

  /// Hands on the last byte once the body's end has followed it.
  private mutating func readLastByte(into buffer: UnsafeMutableRawBufferPointer, length: Int) -> BodyRead {
    var probe: UInt8 = 0
    if lastByte == nil {
      switch withUnsafeMutableBytes(of: &probe, { body.read(into: $0) }) {
      case .bytes: lastByte = probe
      case .end: return .failed(.requestBodyEndedShort(sent: sent, length: length))
      case let other: return other
      }
    }
    switch withUnsafeMutableBytes(of: &probe, { body.read(into: $0) }) {
    case .end:
      buffer[0] = lastByte!
      sent += 1
      return .bytes(1)
    case .bytes: return .failed(.requestBodyRanPast(length: length))
    case let other: return other
    }
  }
}
#endif
