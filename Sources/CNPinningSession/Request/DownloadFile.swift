import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where downloads are written: a directory only this user can enter (mode 0700, made once per
/// process with `mkdtemp`), and files created there exclusively (`O_CREAT | O_EXCL`) with mode
/// 0600, so no other local user can read a body or plant a file for it first.
enum DownloadFile {
  private static let directory = Locked<URL?>(nil)

  /// A new, empty file for a download, open for writing.
  static func create() throws(CNPinnedSessionError) -> (url: URL, handle: FileHandle) {
    let folder = try privateDirectory()
    let url = folder.appendingPathComponent("download-\(UUID().uuidString)")
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw .transferFailed(host: "", reason: "cannot create a file for the download in \(folder.path): errno \(errno)")
    }
    return (url, FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
  }

  private static func privateDirectory() throws(CNPinnedSessionError) -> URL {
    let made = directory.withLock { existing -> URL? in
      if let existing { return existing }
      var template = Array(
        FileManager.default.temporaryDirectory.appendingPathComponent("CNPinnedSession-XXXXXX").path.utf8CString)
      guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
      existing = URL(fileURLWithPath: String(cString: path), isDirectory: true)
      return existing
    }
    guard let made else {
      throw .transferFailed(host: "", reason: "cannot create a private directory for downloads: errno \(errno)")
    }
    return made
  }
}
