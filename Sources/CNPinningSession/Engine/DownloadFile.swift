@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download's file, written as the body arrives. Downloads go to a directory only this user can
/// enter (mode 0700, made once per process with `mkdtemp`, and removed when the process exits if
/// the app moved every download out of it), in files created exclusively (`O_CREAT | O_EXCL`)
/// with mode 0600, so no other local user can read a body or plant a file for it first.
package struct DownloadFile: HopBody {
  package let url: URL
  let handle: FileHandle

  /// A new, empty file for a download, open for writing.
  package static func make() throws(CNPinnedSessionError) -> DownloadFile {
    let folder = try privateDirectory()
    let url = folder.appendingPathComponent("download-\(UUID().uuidString)")
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw .setupFailed(reason: "cannot create a file for the download in \(folder.path): errno \(errno)")
    }
    return DownloadFile(url: url, handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
  }

  package var destination: BodyDestination { .file(handle) }

  package func complete(host: String) throws(CNPinnedSessionError) {
    do {
      try handle.close()
    } catch {
      throw .transferFailed(host: host, reason: "cannot write the download: \(error.localizedDescription)")
    }
  }

  package nonisolated(nonsending) func discard() async { try? FileManager.default.removeItem(at: url) }

  /// The directory of this process's downloads, made on first use.
  private static let directory = Locked<URL?>(nil)

  private static func privateDirectory() throws(CNPinnedSessionError) -> URL {
    let made = directory.withLock { existing -> URL? in
      if let existing { return existing }
      var template = Array(
        FileManager.default.temporaryDirectory.appendingPathComponent("CNPinnedSession-XXXXXX").path.utf8CString)
      guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
      existing = URL(fileURLWithPath: String(cString: path), isDirectory: true)
      DownloadDirectoryCleanup.register(path)
      return existing
    }
    guard let made else {
      throw .setupFailed(reason: "cannot create a private directory for downloads: errno \(errno)")
    }
    return made
  }
}

/// Removes the process's download directory when the process exits, if it is empty: a download
/// the app has not moved away stays where it was returned (as with URLSession's ``download(for:)``).
private enum DownloadDirectoryCleanup {
  /// The directory's path as C reads it, set once before the exit handler is registered and
  /// never freed: the handler may run at any time until the process ends.
  nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?

  /// Called once, under ``DownloadFile/directory``'s lock.
  static func register(_ made: UnsafePointer<CChar>) {
    path = strdup(made)
    atexit {
      if let path = DownloadDirectoryCleanup.path { rmdir(path) }
    }
  }
}
