extension CNPinningManager {
  /// The pinned domain `host` is a small edit away from when `host` itself is not pinned: a typo
  /// in the configuration (`api.locla`) or in the URL, either of which leaves requests unpinned
  /// without a word. nil when `host` is pinned or nothing is that close.
  public func nearestPinnedDomain(to host: String) -> String? {
    guard configuration(for: host) == nil else { return nil }
    return Suggestion.closest(to: host.lowercased(), among: pinnedDomains.keys.sorted())
  }

  /// The warning to give, once per host, for a request to an unpinned `host` that is a near miss
  /// of a pinned domain; nil when there is none or the host was checked already (each host is
  /// checked once, and no more than 256 hosts, so that unpinned requests do not pay for it).
  package func nearMissWarning(for host: String) -> String? {
    let first = nearMissesChecked.withLock { checked in
      guard checked.count < 256 else { return false }
      return checked.insert(host.lowercased()).inserted
    }
    guard first, let domain = nearestPinnedDomain(to: host) else { return nil }
    return "\(host) is not pinned, but the configuration pins \(domain): a typo in the configuration or the URL?"
  }
}
