@_spi(Locking) import CNPinning
import Foundation

/// A response body on its way from the network thread to the task reading it, a chunk at a time,
/// with back-pressure: once `capacity` bytes wait unread, the network side is told to pause (it
/// stops reading the socket), and it is woken again when the reader has taken half of them. So a
/// body of any size passes through in bounded memory, however slow the reader.
///
/// The network side calls `offer` and `finish`; the reader calls `next`. The transport connects
/// `wake` (deliver again after a pause) and `cancel` (stop the transfer) before it starts.
package final class ResponseBodyChannel: Sendable {
  /// The most bytes held unread before the network side pauses.
  static let capacity = 1 << 20

  /// What `offer` did with the bytes it was given.
  package enum Receipt {
    /// Kept (or, when discarding, dropped): ask for more.
    case taken
    /// Not taken: the buffer is full. Offer the same bytes again after `wake`.
    case paused
  }

  private struct State {
    var chunks: [Data] = []
    /// Index of the first unread chunk in `chunks`.
    var first = 0
    var buffered = 0
    var paused = false
    var discarding = false
    /// How the body ended: nil while it is arriving, then success or the error.
    var end: Result<Void, CNPinnedSessionError>?
    /// The reader waiting for a chunk or the end. It is resumed with nothing, under the lock,
    /// and takes what came under the lock: so ThreadSanitizer sees every hand-off (a
    /// continuation's value travels where it cannot: docs/decisions/testing.md).
    var reader: CheckedContinuation<Void, Never>?
    var wake: (@Sendable () -> Void)?
    var cancel: (@Sendable () -> Void)?

    /// Whether a chunk or the end is there to take; if not, `reader` is kept, to be resumed by
    /// `offer`, `push` or `finish`.
    mutating func hasReady(orWait reader: CheckedContinuation<Void, Never>) -> Bool {
      guard first == chunks.count, end == nil else { return true }
      self.reader = reader
      return false
    }

    /// Keeps `data` for the reader, and resumes it if it waits.
    mutating func keep(_ data: Data) {
      chunks.append(data)
      buffered += data.count
      reader?.resume()
      reader = nil
    }

    /// The next chunk or the end, if there is one (and whom to wake, if taking it made room).
    mutating func takeReady() -> (Result<Data?, CNPinnedSessionError>?, wake: (@Sendable () -> Void)?) {
      if first < chunks.count {
        let chunk = chunks[first]
        first += 1
        buffered -= chunk.count
        if first == chunks.count {
          chunks.removeAll(keepingCapacity: true)
          first = 0
        }
        guard paused, buffered <= ResponseBodyChannel.capacity / 2 else { return (.success(chunk), nil) }
        paused = false
        return (.success(chunk), wake)
      }
      switch end {
      case nil: return (nil, nil)
      case .success: return (.success(nil), nil)
      case .failure(let error): return (.failure(error), nil)
      }
    }
  }
  private let state = Locked(State())

  init() {}

  /// Connects the transport: `wake` asks it to deliver again after a pause, `cancel` stops it.
  /// A finished channel keeps neither (the transport's closures hold the job strongly).
  package func connect(wake: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
    state.withLock {
      guard $0.end == nil else { return }
      $0.wake = wake
      $0.cancel = cancel
    }
  }

  // MARK: - Network side

  /// Takes the next bytes of the body.
  package func offer(_ bytes: UnsafeRawBufferPointer) -> Receipt {
    state.withLock { state -> Receipt in
      if state.discarding || state.end != nil { return .taken }
      guard state.buffered < ResponseBodyChannel.capacity else {
        state.paused = true
        return .paused
      }
      state.keep(Data(bytes))
      return .taken
    }
  }

  /// What `push` did with a chunk.
  package enum Push: Equatable {
    /// Kept (or, when discarding, dropped); there is room for more.
    case room
    /// Kept, and the unread bytes have reached `capacity`: the source should pause until `wake`.
    case full
    /// The body has ended (the reader stopped, or it failed): the source should stop.
    case ended
  }

  /// Takes a chunk whole, for a source that cannot hold bytes back (a URLSession data delegate:
  /// what it was handed has arrived); says when the source should pause.
  package func push(_ data: Data) -> Push {
    state.withLock { state -> Push in
      if state.end != nil { return .ended }
      if state.discarding { return .room }
      state.keep(data)
      guard state.buffered >= ResponseBodyChannel.capacity else { return .room }
      state.paused = true
      return .full
    }
  }

  /// The body is complete (`error` nil) or failed; later calls do nothing.
  package func finish(_ error: CNPinnedSessionError?) {
    state.withLock { state in
      guard state.end == nil else { return }
      state.end = error.map { .failure($0) } ?? .success(())
      state.wake = nil
      state.cancel = nil
      state.reader?.resume()
      state.reader = nil
    }
  }

  // MARK: - Reader side

  /// The next chunk of the body, or nil at its end. Cancelling the calling task stops the transfer.
  package func next() async throws(CNPinnedSessionError) -> Data? {
    if let ready = readyChunk() { return try ready.get() }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        if state.withLock({ $0.hasReady(orWait: continuation) }) { continuation.resume() }
      }
    } onCancel: {
      stop(.cancelled)
    }
    // Resumed once a chunk or the end is there (`keep`, `finish`); nothing else takes it.
    let (ready, wake) = state.withLock { $0.takeReady() }
    wake?()
    return try (ready ?? .failure(.cancelled)).get()
  }

  /// What ``next()`` returns, if it can without waiting: a chunk, the end or the failure that
  /// ended the body; nil when nothing has arrived, or when the calling task is cancelled (it goes
  /// the long way, which stops the transfer). Readers call it first: a small body has usually
  /// arrived whole by the time it is read, and an async call costs about 300 instructions more.
  package func readyChunk() -> Result<Data?, CNPinnedSessionError>? {
    guard !Task.isCancelled else { return nil }
    let (ready, wake) = state.withLock { $0.takeReady() }
    wake?()
    return ready
  }

  /// Stops the transfer and ends the body with `error` (a reader that gives up).
  package func stop(_ error: CNPinnedSessionError) {
    let cancel = state.withLock { $0.cancel }
    finish(error)
    cancel?()
  }

  /// Drops the rest of the body as it arrives (a redirect's body) and returns when it ends.
  func discardRest() async {
    let wake = state.withLock { state -> (@Sendable () -> Void)? in
      state.discarding = true
      state.chunks = []
      state.first = 0
      state.buffered = 0
      defer { state.paused = false }
      return state.paused ? state.wake : nil
    }
    wake?()
    while (try? await next()) != nil {}
  }
}
