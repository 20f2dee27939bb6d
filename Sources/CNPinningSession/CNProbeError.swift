/// A failed `probe`: the error, and what was seen of the connection before it failed (the
/// presented chain, for example) when the handshake got that far.
public struct CNProbeError: Error, Sendable, CustomStringConvertible {
  /// Why the probe failed.
  public let error: CNPinnedSessionError
  /// What was seen of the connection, when it got as far as a handshake.
  public let event: CNConnectionEvent?
  public var description: String { error.description }

  package init(error: CNPinnedSessionError, event: CNConnectionEvent?) {
    self.error = error
    self.event = event
  }
}
