import Foundation

/// Which pins are in force, as a value that changes whenever they may have: an enterprise policy
/// applied, refreshed or signed out, or a moment passed at which a host's pins expire, an
/// applied policy's window opens or closes, or a host's report-only window under it ends. A
/// transport that keeps connections open and does not judge reused ones (Apple's URLSession)
/// starts afresh when it changes, so that every request is judged against the pins in force.
/// Ordered: a later generation of one manager compares greater (the boundaries passed count only
/// within one enterprise policy, whose window they are).
package struct PolicyGeneration: Hashable, Comparable, Sendable {
  /// Enterprise policy changes so far.
  let enterpriseChanges: UInt64
  /// How many of the manager's time boundaries lie at or before the moment asked about.
  let boundariesPassed: Int

  package static func < (earlier: Self, later: Self) -> Bool {
    (earlier.enterpriseChanges, earlier.boundariesPassed) < (later.enterpriseChanges, later.boundariesPassed)
  }
}

extension CNPinningManager {
  /// The generation of the pins in force at `date`.
  package func policyGeneration(at date: Date = Date()) -> PolicyGeneration {
    let (changes, policy) = enterprise?.state.withLock { ($0.changes, $0.policy) } ?? (0, nil)
    var passed = expiryDates.prefix { $0 <= date }.count
    if let policy, let skew = enterprise?.clockSkew {
      // The window as `isValid(at:clockSkew:)` judges it: open from start − skew, closed from
      // expiry + skew; and each host's report-only window, which ends at its time (after which
      // its failures are refused, not reported).
      if policy.start - skew <= date { passed += 1 }
      if policy.expiry + skew <= date { passed += 1 }
      for end in policy.reportOnlyByHost.values where end <= date { passed += 1 }
    }
    return PolicyGeneration(enterpriseChanges: changes, boundariesPassed: passed)
  }
}
