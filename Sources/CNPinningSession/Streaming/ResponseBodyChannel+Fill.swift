import CNPinning
import Foundation

extension ResponseBodyChannel {
  /// Bytes gathered before each offer.
  static let fillChunkSize = 64 << 10

  /// Feeds the channel from `bytes` (URLSession's `AsyncBytes` on Apple platforms) a chunk at a
  /// time, pulling no more while the channel is full: the back-pressure reaches the sequence,
  /// which stops reading the network. Ends the channel when the bytes end, fail (with
  /// `translate`), or pass `limit` (`responseTooLarge`); returns early when the reader stops
  /// (a reader that stops calls `stopFilling`, which should cancel the task calling this, so that
  /// an iteration waiting on the network ends too). Platform-neutral, tested on Linux.
  package func fill<Bytes: AsyncSequence>(
    from bytes: Bytes, limit: Int, host: String, progress: CNTransferProgress?,
    stopFilling: @escaping @Sendable () -> Void, translate: (Error) -> CNPinnedSessionError
  ) async where Bytes.Element == UInt8 {
    let room = RoomSignal()
    connect(wake: { room.raise() }, cancel: stopFilling)
    var chunk = Data()
    chunk.reserveCapacity(Self.fillChunkSize)
    var received = 0
    do {
      for try await byte in bytes {
        chunk.append(byte)
        guard chunk.count == Self.fillChunkSize else { continue }
        received += chunk.count
        guard received <= limit else { return finish(.responseTooLarge(host: host, limit: limit)) }
        progress?.add(chunk.count)
        guard await offer(chunk, waitingOn: room) else { return }
        chunk.removeAll(keepingCapacity: true)
      }
      received += chunk.count
      guard received <= limit else { return finish(.responseTooLarge(host: host, limit: limit)) }
      progress?.add(chunk.count)
      if !chunk.isEmpty {
        guard await offer(chunk, waitingOn: room) else { return }
      }
      finish(nil)
    } catch {
      finish(Task.isCancelled ? .cancelled : translate(error))
    }
  }

  /// Offers `chunk` until the channel takes it, waiting for room in between; false when the
  /// calling task was cancelled (the reader stopped).
  private func offer(_ chunk: Data, waitingOn room: RoomSignal) async -> Bool {
    while !Task.isCancelled {
      let receipt = chunk.withUnsafeBytes { offer($0) }
      if case .taken = receipt { return true }
      await withTaskCancellationHandler {
        await room.wait()
      } onCancel: {
        room.raise()
      }
    }
    return false
  }
}

/// A wake-up that is never lost: `raise` before `wait` makes the next `wait` return at once.
private final class RoomSignal: Sendable {
  private let state = Locked<(raised: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

  func raise() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      defer { state = (state.waiter == nil, nil) }
      return state.waiter
    }
    waiter?.resume()
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let raised = state.withLock { state -> Bool in
        if state.raised {
          state.raised = false
          return true
        }
        state.waiter = continuation
        return false
      }
      if raised { continuation.resume() }
    }
  }
}
