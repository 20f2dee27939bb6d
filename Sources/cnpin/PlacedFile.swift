import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A finished download moved beside its target and held by a descriptor, so that what is done
/// to it afterwards (its mode) reaches that file and no other, whatever is put at its path.
enum PlacedFile {
  struct Failure: Error {
    let reason: String

    static func failed(_ action: String) -> Failure {
      Failure(reason: "\(action): \(String(cString: strerror(errno)))")
    }
  }

  /// Gives the regular file at `source` the new name `destination` (made exclusively, never
  /// through a symbolic link): a second link on the same file system, else a copy. Returns a
  /// descriptor on the file now at `destination`; `source` is left for the caller to remove.
  static func move(_ source: String, to destination: String) throws(Failure) -> Int32 {
    let input = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard input >= 0 else { throw .failed("cannot open the download") }
    var status = stat()
    guard fstat(input, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close(input)
      throw Failure(reason: "the download is not a regular file")
    }
    if link(source, destination) == 0 { return input }
    guard errno == EXDEV else {
      let failure = Failure.failed("cannot create \(destination)")
      close(input)
      throw failure
    }
    defer { close(input) }
    let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard output >= 0 else { throw .failed("cannot create \(destination)") }
    do {
      try copy(input, to: output)
    } catch {
      close(output)
      unlink(destination)
      throw error
    }
    return output
  }

  /// Whether `path` names something that is written to rather than replaced: a character device
  /// (`/dev/null`, a terminal) or a FIFO (`>(…)` in a shell), as `curl -o` writes to them.
  static func isStream(_ path: String) -> Bool {
    var status = stat()
    guard stat(path, &status) == 0 else { return false }
    let kind = status.st_mode & S_IFMT
    return kind == S_IFCHR || kind == S_IFIFO
  }

  /// Writes the regular file at `source` into the character device or FIFO at `destination`.
  static func copy(_ source: String, into destination: String) throws(Failure) {
    let input = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard input >= 0 else { throw .failed("cannot open the download") }
    defer { close(input) }
    let output = open(destination, O_WRONLY | O_CLOEXEC)
    guard output >= 0 else { throw .failed("cannot open \(destination)") }
    defer { close(output) }
    var status = stat()
    guard fstat(output, &status) == 0, [S_IFCHR, S_IFIFO].contains(status.st_mode & S_IFMT) else {
      throw Failure(reason: "\(destination) is no longer a device or a FIFO")
    }
    try copy(input, to: output)
  }

  /// Whether `path` still names the file `descriptor` is open on.
  static func names(_ path: String, _ descriptor: Int32) -> Bool {
    var held = stat()
    var named = stat()
    return fstat(descriptor, &held) == 0 && lstat(path, &named) == 0 && held.st_dev == named.st_dev
      && held.st_ino == named.st_ino
  }

  private static func copy(_ input: Int32, to output: Int32) throws(Failure) {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if count == 0 { return }
      if count < 0 {
        if errno == EINTR { continue }
        throw .failed("cannot read the download")
      }
      var written = 0
      while written < count {
        let step = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
        if step < 0 {
          if errno == EINTR { continue }
          throw .failed("cannot write")
        }
        written += step
      }
    }
  }
}
