import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file named on the command line, read whole: a regular file, or a pipe, a FIFO or a device
/// (`--cafile <(…)`, `-d @/dev/stdin`), which Foundation's readers refuse. At most
/// `maximumSize` bytes: a larger input is refused, not read whole.
enum InputFile {
  static let maximumSize = 64 << 20

  /// The bytes of `path`; throws naming `what` (`--cafile roots.pem`) and why.
  static func read(_ path: String, _ what: String) throws(CLIError) -> Data {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .configuration("cannot read \(what): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress!, $0.count) }
      if count == 0 { return data }
      if count < 0 {
        if errno == EINTR { continue }
        throw .configuration("cannot read \(what): \(String(cString: strerror(errno)))")
      }
      data.append(contentsOf: buffer[..<count])
      guard data.count <= maximumSize else { throw .configuration("\(what) is larger than \(maximumSize >> 20) MiB") }
    }
  }

  /// `read` as UTF-8 text.
  static func text(_ path: String, _ what: String) throws(CLIError) -> String {
    guard let text = String(data: try read(path, what), encoding: .utf8) else {
      throw .configuration("\(what) is not UTF-8 text")
    }
    return text
  }
}

/// POSIX `read`, which `InputFile.read` would otherwise shadow.
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(descriptor, buffer, count)
}
