/// Where CNPinning sends its warnings (for example a link without a `type`).
///
/// By default warnings go to standard error in debug builds and nowhere in release builds. An app
/// routes them to its own logger with `CNPinningLog.setHandler { message in … }`.
public enum CNPinningLog {
  /// Receives each warning as one line of text.
  public typealias Handler = @Sendable (String) -> Void

  private static let handler = Locked<Handler>(defaultHandler)

  /// Replaces the warning handler; pass `nil` to restore the default.
  public static func setHandler(_ newHandler: Handler?) {
    handler.withLock { $0 = newHandler ?? defaultHandler }
  }

  package static func warn(_ message: String) {
    let current = handler.withLock { $0 }
    current(message)
  }

  private static let defaultHandler: Handler = { message in
    #if DEBUG
    StandardError.write("CNPinning warning: \(message)\n")
    #endif
  }
}
