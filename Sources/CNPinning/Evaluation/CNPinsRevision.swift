import Foundation

/// Which pins a manager has in force, as a value that grows whenever they may have changed: an
/// enterprise policy applied, refreshed or signed out, a host's pins expired, a policy's window
/// opened or closed, a host's report-only window ended. URLSession asks about server trust only
/// when it opens a connection, so an app that pins its own URLSession (`validate(challenge:)`)
/// compares revisions to know when connections accepted under the old pins must go
/// (`URLSession.cnStartAfreshIfPinsChanged()` does it in one call). `CNPinnedSession` needs none
/// of this: it judges every request.
public struct CNPinsRevision: Hashable, Comparable, Sendable {
  let generation: PolicyGeneration

  /// Whether `earlier` is an older revision than `later`.
  public static func < (earlier: Self, later: Self) -> Bool { earlier.generation < later.generation }
}

extension CNPinningManager {
  /// The revision of the pins in force now.
  public var pinsRevision: CNPinsRevision { CNPinsRevision(generation: policyGeneration()) }
}

/// Remembers the last revision seen (for one URLSession) and starts afresh when it moved on: the
/// first caller to see a newer revision starts the flush, and every caller, that one and any that
/// comes while it runs, returns only once it is done, so nobody sends over a connection accepted
/// under the old pins. Thread-safe; tested on Linux.
package final class PinsRevisionTracker: Sendable {
  private let state = Locked<(seen: CNPinsRevision?, flush: Task<Void, Never>?)>((nil, nil))

  package init() {}

  /// The tracker kept with an object (an associated object of a URLSession): the one `read`
  /// finds, else a new one `attach`ed. Two callers attaching at once both return the one attached
  /// last, so the object keeps one tracker.
  package static func kept(read: () -> PinsRevisionTracker?, attach: (PinsRevisionTracker) -> Void) -> PinsRevisionTracker {
    if let kept = read() { return kept }
    let tracker = PinsRevisionTracker()
    attach(tracker)
    return read() ?? tracker
  }

  /// Takes `current` as seen, unless a revision was seen already: called when a session starts
  /// pinning with a manager, so that the first `startAfresh` after the pins change flushes the
  /// connections accepted before it (issue 53, L12: before, the first call only took note).
  package func seed(_ current: CNPinsRevision) {
    state.withLock { state in state.seen = state.seen ?? current }
  }

  /// `seed` for the manager a session starts pinning with (nil: nothing), saying in the log that
  /// it pins nothing when the session has no delegate to call `validate(challenge:)`.
  package func pinning(with manager: CNPinningManager?, hasDelegate: Bool) {
    guard let manager else { return }
    if !hasDelegate {
      CNPinningLog.warn(
        "cnPinningManager set on a URLSession without a delegate pins nothing: its delegate must call validate(challenge:)")
    }
    seed(manager.pinsRevision)
  }

  /// `startAfresh` at the revision of the session's `manager`; nothing without one.
  package func startAfresh(with manager: CNPinningManager?, flush: @escaping @Sendable () async -> Void) async {
    guard let manager else { return }
    await startAfresh(at: manager.pinsRevision, flush: flush)
  }

  /// Runs `flush` once when `current` is newer than the last revision seen (the first call: not,
  /// as nothing was accepted under older pins yet), and returns when the last flush started has
  /// ended.
  package func startAfresh(at current: CNPinsRevision, flush: @escaping @Sendable () async -> Void) async {
    let running = state.withLock { state -> Task<Void, Never>? in
      defer { state.seen = max(state.seen ?? current, current) }
      if let seen = state.seen, current > seen { state.flush = Task { await flush() } }
      return state.flush
    }
    await running?.value
  }
}
