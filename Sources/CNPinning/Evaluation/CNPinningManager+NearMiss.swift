extension CNPinningManager {
  /// The pinned domain `host` is a small edit away from when `host` itself is not pinned: a typo
  /// in the configuration (`api.locla`) or in the URL, either of which leaves requests unpinned
  /// without a word. nil when `host` is pinned or nothing is that close.
  public func nearestPinnedDomain(to host: String) -> String? {
    guard configuration(for: host) == nil else { return nil }
    return Suggestion.closest(to: host.lowercased(), among: pinnedDomains.keys.sorted())
  }
}
