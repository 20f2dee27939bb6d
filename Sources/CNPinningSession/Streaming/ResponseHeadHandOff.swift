@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stream's response, handed once from the task that reads the stream to the hop waiting for
/// it: the first delivery counts, whether it comes before or after the hop waits. Used by the
/// Apple transport; platform-neutral, tested on Linux.
final class ResponseHeadHandOff<Head: Sendable>: Sendable {
  private let state = Locked<
    (result: Result<Head, CNPinnedSessionError>?, waiter: CheckedContinuation<Head, Error>?)
  >((nil, nil))

  /// Delivers the response (or why there is none); later deliveries are ignored.
  func deliver(_ result: Result<Head, CNPinnedSessionError>) {
    let waiter = state.withLock { state -> CheckedContinuation<Head, Error>? in
      guard state.result == nil else { return nil }
      state.result = result
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(with: result.mapError { $0 })
  }

  /// The response, once delivered; cancelling the calling task cancels `task`, which produces it
  /// (and delivers why it has none).
  func response(cancelling task: Task<Void, Never>) async throws(CNPinnedSessionError) -> Head {
    do {
      return try await withTaskCancellationHandler {
        try await response()
      } onCancel: {
        task.cancel()
      }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch {
      throw .cancelled
    }
  }

  /// The response, once delivered.
  func response() async throws(CNPinnedSessionError) -> Head {
    do {
      return try await withCheckedThrowingContinuation { continuation in
        let ready = state.withLock { state -> Result<Head, CNPinnedSessionError>? in
          if state.result == nil { state.waiter = continuation }
          return state.result
        }
        if let ready { continuation.resume(with: ready.mapError { $0 }) }
      }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch {
      throw .cancelled
    }
  }
}
