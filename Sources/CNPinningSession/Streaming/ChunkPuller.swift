@_spi(Locking) import CNPinning
import Dispatch
import Foundation

/// Hands a ``ChunkedUpload``'s chunks to a thread that blocks for each (the writer of URLSession's
/// body stream on Apple platforms): one long-lived task pulls a chunk each time the thread asks,
/// so a chunk is pulled only when it can be written. ``cancel()``, when the request's task ends,
/// cancels that task and wakes the thread: a producer that waits for ever keeps neither the
/// thread nor the request (issue 53, L2; before, each chunk was pulled by a task of its own that
/// no cancellation reached, and a waiting producer held the thread for good).
package final class ChunkPuller: Sendable {
  private struct State {
    var result: Result<Data?, CNPinnedSessionError>?
    var cancelled = false
  }

  private let state = Locked(State())
  private let ready = DispatchSemaphore(value: 0)
  private let demand: AsyncStream<Void>.Continuation
  private let task: Task<Void, Never>

  /// A puller of `upload`'s chunks for a request to `host`; nothing is pulled before ``take()``.
  package init(_ upload: ChunkedUpload, host: String) {
    let (requests, demand) = AsyncStream.makeStream(of: Void.self)
    self.demand = demand
    let (state, ready) = (state, ready)
    task = Task {
      for await _ in requests {
        let result: Result<Data?, CNPinnedSessionError>
        do throws(CNPinnedSessionError) {
          result = .success(try await upload.next(host: host))
        } catch {
          result = .failure(error)
        }
        state.withLock { $0.result = result }
        ready.signal()
      }
    }
  }

  deinit { cancel() }

  /// The next chunk, nil at the end, or why there is none (`cancelled` after ``cancel()``).
  /// Blocks the calling thread, which must not be one of Swift's cooperative pool.
  package func take() -> Result<Data?, CNPinnedSessionError> {
    guard !state.withLock({ $0.cancelled }) else { return .failure(.cancelled) }
    demand.yield()
    ready.wait()
    return state.withLock { state in
      if state.cancelled { return .failure(.cancelled) }
      defer { state.result = nil }
      return state.result ?? .failure(.cancelled)
    }
  }

  /// Blocks the calling thread until `readerStarted()` is true and
  /// returns true, or returns false once the puller has been cancelled (the task ended first).
  /// On Apple platforms the writer waits so until URLSession opens the body stream, which it does
  /// when it starts sending the body, after the connection's handshake: before, the first
  /// 64 KiB were pulled when the stream was made, before any connection existed, and a one-shot
  /// producer lost them when the server was then refused (issue 53, L1).
  /// The check starts every 2 ms and slows to every 20 ms, for a request URLSession keeps
  /// queued behind others.
  package func wait(until readerStarted: () -> Bool) -> Bool {
    var milliseconds = 2
    while !readerStarted() {
      if state.withLock({ $0.cancelled }) { return false }
      // Woken early by `cancel()`, which signals the same semaphore.
      _ = ready.wait(timeout: .now() + .milliseconds(milliseconds))
      milliseconds = min(milliseconds * 2, 20)
    }
    return !state.withLock { $0.cancelled }
  }

  /// Writes the body through `write` once `readerStarted()` (`wait(until:)`), a chunk at a time as
  /// ``take()`` gives them, and calls `close` when it has ended whole or the reader closed its end
  /// (`write` false: the task is over). Returns false, without closing, when the sequence failed
  /// or the task ended first: a body cut short is never ended as if whole. Blocks the calling
  /// thread (the writer of URLSession's body stream on Apple platforms).
  package func drain(until readerStarted: () -> Bool, write: (Data) -> Bool, close: () -> Void) -> Bool {
    guard wait(until: readerStarted) else { return false }
    while true {
      guard case .success(let pulled) = take() else { return false }
      guard let chunk = pulled, write(chunk) else { break }
    }
    close()
    return true
  }

  /// Writes all of `chunk` through `write`, which takes bytes and returns how many it took (a
  /// stream's `write(_:maxLength:)`); false when it took none (the stream was closed or failed).
  package static func writeAll(_ chunk: Data, through write: (UnsafePointer<UInt8>, Int) -> Int) -> Bool {
    chunk.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let count = write(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, bytes.count - offset)
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
  }

  /// Stops pulling: the pulling task is cancelled and a thread waiting in ``take()`` returns.
  package func cancel() {
    let first = state.withLock { state -> Bool in
      defer { state.cancelled = true }
      return !state.cancelled
    }
    guard first else { return }
    task.cancel()
    demand.finish()
    ready.signal()
  }
}
