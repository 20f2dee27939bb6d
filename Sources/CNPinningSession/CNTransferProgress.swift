@_spi(Locking) import CNPinning

/// How far a response body has come, for a progress display: the session updates it as bytes
/// arrive, anyone may read it at any time. Pass one to `download(for:progress:)` or
/// `data(for:progress:)`; it describes the current hop and starts over at each redirect.
public final class CNTransferProgress: Sendable {
  private let state = Locked<(received: Int, expected: Int?)>((0, nil))

  /// A progress with nothing received.
  public init() {}

  /// Body bytes received so far, after decoding.
  public var receivedBytes: Int { state.withLock { $0.received } }

  /// The body's length as the server announced it, when it did and the body is not
  /// content-encoded.
  public var expectedBytes: Int? { state.withLock { $0.expected } }

  /// A new response has started: nothing received, `expected` announced.
  package func start(expected: Int?) { state.withLock { $0 = (0, expected) } }

  /// `count` more bytes arrived.
  package func add(_ count: Int) { state.withLock { $0.received += count } }
}
