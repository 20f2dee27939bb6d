@_spi(Locking) import CNPinning
import Foundation

/// A body that its source pushes a chunk at a time (a URLSession data delegate's
/// `didReceive(data:)` on Apple platforms) on its way into a `ResponseBodyChannel`: each chunk is
/// handed to the reader as it arrives, whole, and once the reader has `capacity` bytes unread the
/// source is paused (a data task suspended, once: suspends nest) until the reader has taken half. The limit is counted
/// as chunks arrive. Platform-neutral, tested on Linux with a source of its own.
package final class ChunkFeed: Sendable {
  private let channel: ResponseBodyChannel
  private let limit: Int
  private let host: String
  private let progress: CNTransferProgress?
  private let pause: @Sendable () -> Void
  private let resume: @Sendable () -> Void
  private let cancel: @Sendable () -> Void

  private struct State {
    var received = 0
    /// The source is paused.
    var paused = false
    /// The reader made room before the source was paused: do not pause it.
    var roomMade = false
  }
  /// Pausing and resuming happen under this lock, so that a wake-up cannot slip between the
  /// decision to pause and the pause.
  private let state = Locked(State())

  /// `pause`, `resume` and `cancel` act on the source; they are called under a lock and must not
  /// block (URLSessionTask's `suspend`, `resume` and `cancel` do not).
  package init(
    into channel: ResponseBodyChannel, limit: Int, host: String, progress: CNTransferProgress?,
    pause: @escaping @Sendable () -> Void, resume: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void
  ) {
    self.channel = channel
    self.limit = limit
    self.host = host
    self.progress = progress
    self.pause = pause
    self.resume = resume
    self.cancel = cancel
    channel.connect(wake: { [weak self] in self?.roomMade() }, cancel: cancel)
  }

  /// A chunk from the source. False when the body is over (the limit passed, the reader gone):
  /// the source has been cancelled and what it sends later is dropped.
  @discardableResult
  package func receive(_ data: Data) -> Bool {
    let total = state.withLock { state -> Int in
      state.received += data.count
      return state.received
    }
    guard total <= limit else {
      channel.finish(.responseTooLarge(host: host, limit: limit))
      cancel()
      return false
    }
    progress?.add(data.count)
    switch channel.push(data) {
    case .room: return true
    case .ended: return false
    case .full:
      // Suspended once, however many chunks arrive while it is: a URLSession task's suspends
      // nest and it may still deliver data received while suspending, and one resume follows.
      state.withLock { state in
        if state.roomMade {
          state.roomMade = false
        } else if !state.paused {
          state.paused = true
          pause()
        }
      }
      return true
    }
  }

  /// The source ended: the body is complete (`error` nil) or failed.
  package func finish(_ error: CNPinnedSessionError?) { channel.finish(error) }

  /// The reader took half of what was unread.
  private func roomMade() {
    state.withLock { state in
      if state.paused {
        state.paused = false
        resume()
      } else {
        state.roomMade = true
      }
    }
  }
}
