import Foundation

/// Which pins a manager has in force, as a value that grows whenever they may have changed: an
/// enterprise policy applied, refreshed or signed out, a host's pins expired, a policy's window
/// opened or closed. URLSession asks about server trust only when it opens a connection, so an
/// app that pins its own URLSession (`validate(challenge:)`) compares revisions to know when
/// connections accepted under the old pins must go (`URLSession.cnStartAfreshIfPinsChanged()`
/// does it in one call). `CNPinnedSession` needs none of this: it judges every request.
public struct CNPinsRevision: Hashable, Comparable, Sendable {
  let generation: PolicyGeneration

  /// Whether `earlier` is an older revision than `later`.
  public static func < (earlier: Self, later: Self) -> Bool { earlier.generation < later.generation }
}

extension CNPinningManager {
  /// The revision of the pins in force now.
  public var pinsRevision: CNPinsRevision { CNPinsRevision(generation: policyGeneration()) }
}

/// Remembers the last revision seen (for one URLSession) and says when it moved on. Thread-safe;
/// tested on Linux.
package final class PinsRevisionTracker: Sendable {
  private let seen = Locked<CNPinsRevision?>(nil)

  package init() {}

  /// Whether `current` is newer than the last revision seen (the first call: false, as nothing
  /// was accepted under older pins yet), remembering it.
  package func hasMovedOn(to current: CNPinsRevision) -> Bool {
    seen.withLock { seen in
      defer { seen = max(seen ?? current, current) }
      guard let seen else { return false }
      return current > seen
    }
  }
}
