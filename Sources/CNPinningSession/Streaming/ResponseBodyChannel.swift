import CNPinning
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
    var reader: CheckedContinuation<Data?, any Error>?
    var wake: (@Sendable () -> Void)?
    var cancel: (@Sendable () -> Void)?

    /// The next chunk or the end, if there is one (and whom to wake, if taking it made room);
    /// otherwise `reader` is kept, to be resumed by `offer` or `finish`.
    mutating func take(orWait reader: CheckedContinuation<Data?, any Error>) -> (
      Result<Data?, CNPinnedSessionError>?, wake: (@Sendable () -> Void)?
    ) {
      let (ready, wake) = takeReady()
      if ready == nil { self.reader = reader }
      return (ready, wake)
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
  package func connect(wake: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
    state.withLock {
      $0.wake = wake
      $0.cancel = cancel
    }
  }

  // MARK: - Network side

  /// Takes the next bytes of the body.
  package func offer(_ bytes: UnsafeRawBufferPointer) -> Receipt {
    let (receipt, reader) = state.withLock { state -> (Receipt, CheckedContinuation<Data?, any Error>?) in
      if state.discarding || state.end != nil { return (.taken, nil) }
      if let reader = state.reader {
        state.reader = nil
        return (.taken, reader)
      }
      guard state.buffered < ResponseBodyChannel.capacity else {
        state.paused = true
        return (.paused, nil)
      }
      state.chunks.append(Data(bytes))
      state.buffered += bytes.count
      return (.taken, nil)
    }
    reader?.resume(returning: Data(bytes))
    return receipt
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
    let (push, reader) = state.withLock { state -> (Push, CheckedContinuation<Data?, any Error>?) in
      if state.end != nil { return (.ended, nil) }
      if state.discarding { return (.room, nil) }
      if let reader = state.reader {
        state.reader = nil
        return (.room, reader)
      }
      state.chunks.append(data)
      state.buffered += data.count
      guard state.buffered >= ResponseBodyChannel.capacity else { return (.room, nil) }
      state.paused = true
      return (.full, nil)
    }
    reader?.resume(returning: data)
    return push
  }

  /// The body is complete (`error` nil) or failed; later calls do nothing.
  package func finish(_ error: CNPinnedSessionError?) {
    let reader = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
      guard state.end == nil else { return nil }
      state.end = error.map { .failure($0) } ?? .success(())
      state.wake = nil
      state.cancel = nil
      defer { state.reader = nil }
      return state.reader
    }
    guard let reader else { return }
    if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
  }

  // MARK: - Reader side

  /// The next chunk of the body, or nil at its end. Cancelling the calling task stops the transfer.
  package func next() async throws(CNPinnedSessionError) -> Data? {
    // What has arrived is taken without suspending (a small body has usually arrived whole by
    // the time it is read); a cancelled reader goes the long way, which stops the transfer.
    if !Task.isCancelled {
      let (ready, wake) = state.withLock { $0.takeReady() }
      wake?()
      if let ready { return try ready.get() }
    }
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
          let (ready, wake) = state.withLock { $0.take(orWait: continuation) }
          wake?()
          if let ready { continuation.resume(with: ready.mapError { $0 }) }
        }
      } onCancel: {
        stop(.cancelled)
      }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch {
      throw .cancelled
    }
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
