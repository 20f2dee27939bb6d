/// The Public Suffix List (`PublicSuffixData.swift`, generated from Debian's copy): the domains
/// under which anyone may register a name (`com`, `co.uk`, `github.io`, …), so that no cookie may
/// name one as its `Domain` and reach every site under it. Read once, on first use.
package enum PublicSuffixList {
  private struct Rules {
    var names: Set<String> = []
    /// `*.name` rules, by `name`.
    var wildcards: Set<String> = []
    /// `!name` rules, by `name`.
    var exceptions: Set<String> = []
  }

  private static let rules: Rules = {
    var rules = Rules()
    for line in rulesText.split(separator: "\n") {
      if line.hasPrefix("!") {
        rules.exceptions.insert(String(line.dropFirst()))
      } else if line.hasPrefix("*.") {
        rules.wildcards.insert(String(line.dropFirst(2)))
      } else {
        rules.names.insert(String(line))
      }
    }
    return rules
  }()

  /// The public suffix of `host` (ASCII lower case, no trailing dot): the longest rule that
  /// matches, an exception's parent, or the last label (the list's implicit `*` rule). Nil for a
  /// name with an empty label.
  static func publicSuffix(of host: String) -> String? {
    let labels = host.split(separator: ".", omittingEmptySubsequences: false)
    guard !labels.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
    return listedSuffix(of: labels) ?? String(labels[labels.count - 1])
  }

  /// The public suffix a rule of the list gives `host`, without the implicit `*` rule: nil for
  /// a name under a top-level domain the list does not know (`api.test`), a single label or a
  /// name with an empty label. What TrustKit's domain registry calls a known registry.
  package static func listedSuffix(of host: String) -> String? {
    let labels = host.split(separator: ".", omittingEmptySubsequences: false)
    guard labels.count > 1, !labels.contains(where: \.isEmpty) else { return nil }
    return listedSuffix(of: labels)
  }

  private static func listedSuffix(of labels: [Substring]) -> String? {
    for start in labels.indices {
      let candidate = labels[start...].joined(separator: ".")
      if rules.exceptions.contains(candidate) { return labels[(start + 1)...].joined(separator: ".") }
      if rules.names.contains(candidate) { return candidate }
      if start + 1 < labels.count, rules.wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
        return candidate
      }
    }
    return nil
  }

  /// Whether `domain` is itself a public suffix.
  static func isPublicSuffix(_ domain: String) -> Bool { publicSuffix(of: domain) == domain }

  /// The public suffix of `host` and one label more (`example.co.uk` for `www.example.co.uk`);
  /// nil when `host` is itself a public suffix or not a name.
  static func registrableDomain(of host: String) -> String? {
    guard let suffix = publicSuffix(of: host), suffix != host else { return nil }
    let rest = host.dropLast(suffix.count + 1)
    let label = rest.split(separator: ".").last ?? rest
    return "\(label).\(suffix)"
  }
}
