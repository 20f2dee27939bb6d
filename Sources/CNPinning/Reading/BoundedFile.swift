import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file without trusting its size or its kind: at most one byte more than a bound, so
/// that a file grown past it is seen as too large without being read whole, and only a regular
/// file, opened without blocking, so that a FIFO, a device or a socket put where a file was
/// expected is refused at once instead of hanging the reader.
package enum BoundedFile {
  /// Why a file was not read.
  package struct Unreadable: Error, LocalizedError, Sendable {
    package let path: String
    package let reason: String
    package var errorDescription: String? { "\(path): \(reason)" }
  }

  /// The first `maximum + 1` bytes of the regular file at `url` (fewer when it is shorter).
  package static func read(_ url: URL, maximum: Int) throws -> Data {
    let path = url.path
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw Unreadable(path: path, reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw Unreadable(path: path, reason: String(cString: strerror(errno))) }
    guard status.st_mode & S_IFMT == S_IFREG else { throw Unreadable(path: path, reason: "it is not a regular file") }
    // Sized by the file as it is now, grown up to the bound if it grows while read.
    let limit = maximum + 1
    var data = Data(count: min(limit, max(Int(status.st_size), 0) + 1))
    var filled = 0
    while filled < limit {
      if filled == data.count { data.count = min(limit, data.count * 2) }
      let count = data.withUnsafeMutableBytes { buffer in
        posixRead(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw Unreadable(path: path, reason: String(cString: strerror(errno)))
      }
      if count == 0 { break }
      filled += count
    }
    data.count = filled
    return data
  }
}

/// POSIX `read`, which `Data`'s members would otherwise shadow.
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(descriptor, buffer, count)
}
