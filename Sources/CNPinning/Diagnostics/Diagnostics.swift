import Foundation

/// Where CNPinning sends its warnings (for example a link without a `type`).
///
/// By default warnings go to standard error in debug builds and nowhere in release builds. An app
/// routes them to its own logger with `CNPinningLog.setHandler { message in … }`.
public enum CNPinningLog: Sendable {
  /// Receives each warning as one line of text.
  public typealias Handler = @Sendable (String) -> Void

  /// The handler in a struct: a bare closure stored as `Locked`'s generic value is converted to
  /// and from its generic form on every `withLock` (which writes the value back), and each
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

  private static let defaultHandler: Handler = { message in
    #if DEBUG
    StandardError.write("CNPinning warning: \(message)\n")
    #endif
  }
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
