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
  func discard() async
}

/// A body held whole in memory (`data(for:)`): the transfer's outcome carries it.
package struct BodyInMemory: HopBody {
  package static func make() -> BodyInMemory { BodyInMemory() }
  package var destination: BodyDestination { .memory }
  package func complete(host: String) {}
  package func discard() async {}
}

extension ResponseBodyChannel: HopBody {
  package static func make() -> ResponseBodyChannel { ResponseBodyChannel() }
  package var destination: BodyDestination { .channel(self) }
  package func complete(host: String) {}
  package func discard() async { await discardRest() }
}
