@_spi(Locking) import CNPinning
import Foundation

/// A request body taken from a caller's `AsyncSequence` of chunks (`CNHTTPRequest.Body`), read
/// by one reader at a time: libcurl's read callback through ``ChunkedRequestBody`` on Linux, a
/// bound stream's writing thread on Apple platforms. Empty chunks are skipped, so that an empty
/// chunk never reads as the end. A stated length is held to here, on both platforms: a sequence
/// may end neither short of it nor past it, and the chunk that completes it is handed on only
/// once the sequence has ended (a transport sends no more than the length, so a longer sequence
/// would otherwise go unseen). How the sequence failed is recorded here, where it happens, and
/// whoever is registered is told at once (`onFailure`).
// Unchecked Sendable: `pull`, `sent` and `ended` belong to the one reader at a time; the rest is behind `state`.
package final class ChunkedUpload: @unchecked Sendable {
  /// The body's length in bytes, when stated (sent as `Content-Length`).
  package let length: Int?
  private let pull: () async throws -> Data?
  private var sent = 0
  private var ended = false
  private let state = Locked(State())

  private struct State {
    var failure: CNPinnedSessionError?
    var onFailure: [@Sendable (CNPinnedSessionError) -> Void] = []
    /// The sequence ended whole: no failure can follow.
    var whole = false
    /// What must outlive the writer (`keep`).
    var kept: [any Sendable] = []
    /// The pullers ``puller(host:)`` made, stopped by ``taskEnded()``.
    var pullers: [ChunkPuller] = []
  }

  package init<Chunks: AsyncSequence>(_ sequence: Chunks, length: Int?) where Chunks.Element == Data {
    let iterator = IteratorBox(sequence.makeAsyncIterator())
    pull = { try await iterator.next() }
    self.length = length
  }

  /// The next non-empty chunk, nil at the end. A sequence that throws fails with
  /// `transferFailed` naming its error (`cancelled` for a `CancellationError`); one that
  /// disagrees with its stated length fails with `invalidArgument` naming both; so does every
  /// later call.
  package func next(host: String) async throws(CNPinnedSessionError) -> Data? {
    if let failure { throw failure }
    guard let chunk = try await nextNonEmpty(host: host) else {
      if let length, sent < length { throw fail(.requestBodyEndedShort(sent: sent, length: length)) }
      state.withLock { state in
        state.whole = true
        state.onFailure = []
      }
      return nil
    }
    sent += chunk.count
    if let length, sent >= length {
      // The chunk that completes the length goes on only once the sequence has ended.
      let goesOn = sent > length ? true : try await nextNonEmpty(host: host) != nil
      if goesOn { throw fail(.requestBodyRanPast(length: length)) }
    }
    return chunk
  }

  /// Keeps `object` for as long as the upload lives, which is as long as its request: the Apple
  /// transport's write end of a failed body's stream pair, which releasing would close, ending
  /// the body as if whole before URLSession handles the cancel (issue 53, M6).
  package func keep(_ object: any Sendable) {
    state.withLock { $0.kept.append(object) }
  }

  /// A puller of this body's chunks for a thread that writes them (``ChunkPuller``), stopped when
  /// the request's task ends (``taskEnded()``).
  package func puller(host: String) -> ChunkPuller {
    let puller = ChunkPuller(self, host: host)
    state.withLock { $0.pullers.append(puller) }
    return puller
  }

  /// The request's task ended (its delegate's `didCompleteWithError`): every puller stops, and a
  /// producer still waiting no longer holds a thread.
  package func taskEnded() {
    for puller in state.withLock({ state in
      defer { state.pullers = [] }
      return state.pullers
    }) { puller.cancel() }
  }

  /// Why the sequence failed, if it did.
  package var failure: CNPinnedSessionError? { state.withLock { $0.failure } }

  /// Calls `action` with the failure once the sequence has failed (at once when it already has):
  /// the Apple transport cancels its task there, so that a body cut short is never sent as
  /// whole. Actions are dropped when the sequence ends whole; capture what they act on weakly,
  /// since the upload lives as long as its request.
  package func onFailure(_ action: @escaping @Sendable (CNPinnedSessionError) -> Void) {
    let failure = state.withLock { state -> CNPinnedSessionError? in
      if state.failure == nil, !state.whole { state.onFailure.append(action) }
      return state.failure
    }
    if let failure { action(failure) }
  }

  /// The sequence's next non-empty chunk, nil at its end. Whatever the sequence throws (a
  /// ``CNPinnedSessionError`` too) is recorded as the upload's failure.
  private func nextNonEmpty(host: String) async throws(CNPinnedSessionError) -> Data? {
    do {
      while !ended {
        guard let chunk = try await pull() else {
          ended = true
          return nil
        }
        if !chunk.isEmpty { return chunk }
      }
      return nil
    } catch {
      throw fail(
        error is CancellationError
          ? .cancelled : .transferFailed(host: host, reason: "the request body's sequence failed: \(error)"))
    }
  }

  private func fail(_ failure: CNPinnedSessionError) -> CNPinnedSessionError {
    let (recorded, actions) = state.withLock { state -> (CNPinnedSessionError, [@Sendable (CNPinnedSessionError) -> Void]) in
      if let recorded = state.failure { return (recorded, []) }
      state.failure = failure
      defer { state.onFailure = [] }
      return (failure, state.onFailure)
    }
    for action in actions { action(recorded) }
    return recorded
  }
}

extension CNPinnedSessionError {
  /// A streamed request body that ended before its stated length: the server would wait for the rest.
  package static func requestBodyEndedShort(sent: Int, length: Int) -> CNPinnedSessionError {
    .invalidArgument("the request body ended after \(sent) bytes, short of its stated length (Content-Length) of \(length)")
  }

  /// A streamed request body that goes on past its stated length: the rest would go unsent, unseen.
  package static func requestBodyRanPast(length: Int) -> CNPinnedSessionError {
    .invalidArgument("the request body goes on past its stated length (Content-Length) of \(length) bytes")
  }
}

/// A sequence's iterator, advanced by one reader at a time.
private final class IteratorBox<Iterator: AsyncIteratorProtocol> where Iterator.Element == Data {
  private var iterator: Iterator
  init(_ iterator: Iterator) { self.iterator = iterator }
  func next() async throws -> Data? { try await iterator.next() }
}
