import CNPinning
import Foundation

/// A request body taken from a caller's `AsyncSequence` of chunks (`CNHTTPRequest.Body`), read
/// by one reader at a time: libcurl's read callback through `ChunkedRequestBody` on Linux, a
/// bound stream's writing thread on Apple platforms. Empty chunks are skipped, so that an empty
/// chunk never reads as the end. How the sequence failed is recorded here, where it happens,
/// and whoever is registered is told at once (`onFailure`).
// Unchecked Sendable: `pull` (the sequence's iterator) is called by one reader at a time; the rest is behind `state`.
package final class ChunkedUpload: @unchecked Sendable {
  private let pull: () async throws -> Data?
  private let state = Locked(State())

  private struct State {
    var failure: CNPinnedSessionError?
    var onFailure: [@Sendable () -> Void] = []
  }

  package init<Chunks: AsyncSequence>(_ sequence: Chunks) where Chunks.Element == Data {
    let iterator = IteratorBox(sequence.makeAsyncIterator())
    pull = { try await iterator.next() }
  }

  /// The next non-empty chunk, nil at the end. A sequence that throws fails with
  /// `transferFailed` naming its error (`cancelled` for a `CancellationError`); so does every
  /// later call.
  package func next(host: String) async throws(CNPinnedSessionError) -> Data? {
    if let failure { throw failure }
    do {
      while let chunk = try await pull() {
        if !chunk.isEmpty { return chunk }
      }
      return nil
    } catch {
      let failure: CNPinnedSessionError =
        error is CancellationError
        ? .cancelled : .transferFailed(host: host, reason: "the request body's sequence failed: \(error)")
      fail(failure)
      throw failure
    }
  }

  /// Why the sequence failed, if it did.
  package var failure: CNPinnedSessionError? { state.withLock { $0.failure } }

  /// Calls `action` once the sequence has failed (at once when it already has): the Apple
  /// transport cancels its task there, so that a body cut short is never sent as whole.
  package func onFailure(_ action: @escaping @Sendable () -> Void) {
    let failed = state.withLock { state -> Bool in
      if state.failure == nil { state.onFailure.append(action) }
      return state.failure != nil
    }
    if failed { action() }
  }

  private func fail(_ failure: CNPinnedSessionError) {
    let actions = state.withLock { state -> [@Sendable () -> Void] in
      guard state.failure == nil else { return [] }
      state.failure = failure
      defer { state.onFailure = [] }
      return state.onFailure
    }
    for action in actions { action() }
  }
}

/// A sequence's iterator, advanced by one reader at a time.
private final class IteratorBox<Iterator: AsyncIteratorProtocol> where Iterator.Element == Data {
  private var iterator: Iterator
  init(_ iterator: Iterator) { self.iterator = iterator }
  func next() async throws -> Data? { try await iterator.next() }
}
