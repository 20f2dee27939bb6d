import Foundation

#if canImport(os)
import os
#endif

/// Where CNPinning sends its warnings (for example a link without a `type`, a pin refusal the
/// seed's delegate pattern made, a report that could not be uploaded).
///
/// By default, on Apple platforms, warnings go to the unified log in every build (subsystem
/// ``CNPinning``, category `pinning`, level warning; the message is private data, since host and
/// certificate names can identify a user's employer or software); on Linux, to standard error in
/// debug builds and nowhere in release builds: a service chooses with
/// `CNPinningLog.setHandler(CNPinningLog.standardError)` or its own logger
/// (`CNPinningLog.setHandler { message in … }`). `cnpin` writes them to standard error.
public enum CNPinningLog: Sendable {
  /// Receives each warning as one line of text.
  public typealias Handler = @Sendable (String) -> Void

  /// The handler in a struct: a bare closure stored as ``Locked``'s generic value is converted to
  /// and from its generic form on every ``withLock`` (which writes the value back), and each
  /// round trip wrapped it in two more thunks, so each warning made the next call deeper.
  private struct Route: Sendable {
    let send: Handler
  }

  private static let route = Locked(Route(send: defaultHandler))

  /// Replaces the warning handler; pass `nil` to restore the default.
  public static func setHandler(_ newHandler: Handler?) {
    route.withLock { $0 = Route(send: newHandler ?? defaultHandler) }
  }

  package static func warn(_ message: String) {
    route.withLock { $0 }.send(message)
  }

  /// Writes each warning as a line `CNPinning warning: …` to standard error.
  public static let standardError: Handler = handler(writingTo: .standardError)

  /// A handler that writes each warning as a line `CNPinning warning: …` to `file`.
  public static func handler(writingTo file: FileHandle) -> Handler {
    let file = UncheckedFileHandle(handle: file)
    return { message in file.handle.write(Data("CNPinning warning: \(message)\n".utf8)) }
  }

  #if canImport(os)
  private static let logger = Logger(subsystem: "CNPinning", category: "pinning")
  private static let defaultHandler: Handler = { message in logger.warning("\(message, privacy: .private)") }
  #else
  private static let defaultHandler: Handler = { message in
    #if DEBUG
    standardError(message)
    #endif
  }
  #endif
}

/// A file handle given to a handler, which only writes to it.
// Unchecked Sendable: FileHandle.write is safe from any thread; the handle is never changed.
private struct UncheckedFileHandle: @unchecked Sendable {
  let handle: FileHandle
}

enum StandardError {
  static func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}

/// The version of the CNPinning package (semantic versioning; before 1.0 a minor release may
/// change the API, as CHANGELOG.md says).
public enum CNPinningVersion: Sendable {
  /// This release, as in CHANGELOG.md and `cnpin --version`.
  public static let current = "0.1.0"
}
