extension CNPinningManager {
  /// The pinned domain `host` is a small edit away from when `host` itself is not pinned: a typo
  /// in the configuration (`api.locla`) or in the URL, either of which leaves requests unpinned
  /// without a word. nil when `host` is pinned or nothing is that close.
  public func nearestPinnedDomain(to host: String) -> String? {
    guard configuration(for: host) == nil else { return nil }
    return Suggestion.closest(to: host.lowercased(), among: pinnedDomains.keys.sorted())
  }

  /// Why an unpinned `host` is probably meant to be pinned, in words: a pinned domain a small edit
  /// away, or a parent domain pinned without `includesSubdomains`; nil when neither (or when
  /// `host` is pinned). The one home of the hint `cnpin lint --host` and `cnpin check` give.
  package func nearMiss(for host: String) -> String? {
    guard case .success(let name) = HostName.parse(host), configuration(for: name) == nil else { return nil }
    if let domain = nearestPinnedDomain(to: name.normalized) {
      return "the configuration pins \(domain): a typo in the configuration or the host?"
    }
    guard !name.isIPAddress else { return nil }
    var rest = name.normalized[...]
    while let dot = rest.firstIndex(of: ".") {
      rest = rest[rest.index(after: dot)...]
      if pinnedDomains[String(rest)]?.includesSubdomains == false {
        return "the configuration pins \(rest) without includesSubdomains, which does not cover its subdomains"
      }
    }
    return nil
  }
}
