import Foundation

/// Where the response body of one hop goes, made afresh for each hop of a request: kept when the
/// hop is the last, thrown away when a redirect follows or the hop fails.
package protocol HopBody {
  /// A place for the next hop's body.
  static func make() throws(CNPinnedSessionError) -> Self
  /// What the transport writes into.
  var destination: BodyDestination { get }
  /// The hop ended well: whatever must happen before the body is handed on (a file closed, so
  /// that a failed last write is an error rather than a short file).
  func complete(host: String) throws(CNPinnedSessionError)
  /// The body is not wanted: a redirect's, or a failed hop's. Leaves nothing behind.
  nonisolated(nonsending) func discard() async
  /// The hop failed with `error`, possibly before any transport wrote into the body: ends what
  /// is waiting on it, then discards it.
  nonisolated(nonsending) func discard(after error: CNPinnedSessionError) async
}

extension HopBody {
  package nonisolated(nonsending) func discard(after error: CNPinnedSessionError) async { await discard() }
}

/// A body held whole in memory (`data(for:)`): the transfer's outcome carries it.
package struct BodyInMemory: HopBody {
  package static func make() -> BodyInMemory { BodyInMemory() }
  package var destination: BodyDestination { .memory }
  package func complete(host: String) {}
  package nonisolated(nonsending) func discard() async {}
}

extension ResponseBodyChannel: HopBody {
  package static func make() -> ResponseBodyChannel { ResponseBodyChannel() }
  package var destination: BodyDestination { .channel(self) }
  package func complete(host: String) {}
  package nonisolated(nonsending) func discard() async { await discardRest() }
  /// A failed hop's channel may never have been written into (the request was refused before
  /// the network): ending it first keeps the discard from waiting for an end that never comes.
  /// A transport that ended it already is not overruled (`finish` keeps the first end).
  package nonisolated(nonsending) func discard(after error: CNPinnedSessionError) async {
    finish(error)
    await discardRest()
  }
}

/// Where a request's response body goes.
package enum BodyDestination {
  case memory
  /// A download's file, written as the body arrives.
  case file(FileHandle)
  /// Handed on as it arrives (`bytes(for:)`); the response is delivered when the body starts.
  case channel(ResponseBodyChannel)

  /// Whether the whole body is held in memory: such bodies have the smaller limit
  /// (`maximumResponseBodySize`); a file or a stream read as it arrives has `maximumDownloadSize`.
  package var holdsBody: Bool {
    if case .memory = self { return true }
    return false
  }

  /// Whether the body is read by the caller as it arrives, and so may stall when they stop.
  package var isStreamed: Bool {
    if case .channel = self { return true }
    return false
  }
}
