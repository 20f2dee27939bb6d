/// A `subjectAltName` link's value, read once: the host (or IP address) the leaf must be valid
/// for, or the domain below which it must be valid for some name.
enum AltName: Hashable, Sendable {
  /// `api.example.com`, `192.0.2.1`, `2001:db8::1`: some entry covers this host.
  case host(HostName)
  /// `.example.com`: some DNS entry is a name below this domain (normalised, without the dot).
  case below(String)

  init(_ value: String) throws(CNConfigurationError) {
    let advice = "write a host name (api.example.com), an IP address, or .example.com for the names below a domain"
    if value.hasPrefix("*.") {
      throw CNConfigurationError(.invalidValue(value, reason: "is a wildcard; \(advice)"))
    }
    let isDomain = value.hasPrefix(".")
    switch HostName.parse(isDomain ? String(value.dropFirst()) : value) {
    case .failure(let invalid):
      throw CNConfigurationError(.invalidValue(value, reason: "is not a subjectAltName value: \(invalid.reason); \(advice)"))
    case .success(let name) where isDomain && name.isIPAddress:
      throw CNConfigurationError(.invalidValue(value, reason: "is an IP address after the dot; an address has nothing below it"))
    case .success(let name):
      self = isDomain ? .below(name.normalized) : .host(name)
    }
  }

  /// Whether the certificate's subjectAltName satisfies this value; false when it has none or
  /// it does not decode. The rules are the host check's (OpenSSL's `X509_check_host` and
  /// `X509_check_ip` as the session calls them): an address matches an entry of its own length
  /// (an IPv4-mapped IPv6 entry is no IPv4 address), a DNS entry with a trailing dot matches
  /// nothing, and a wildcard is a whole left-most label above at least two more labels of letters,
  /// digits and hyphens, covering one label of the same.
  func matches(_ certificate: CNCertificate) -> Bool {
    guard case .present(let names, _) = certificate.subjectAlternativeNames else { return false }
    switch self {
    case .host(let host) where host.isIPAddress:
      let isIPv6 = host.normalized.contains(":")
      return names.ipAddresses.contains { entry in
        entry.contains(":") == isIPv6 && Self.host(entry)?.normalized == host.normalized
      }
    case .host(let host):
      return names.dnsNames.contains { Self.entry($0).map { $0.covers(host.normalized) } ?? false }
    case .below(let domain):
      return names.dnsNames.contains { Self.entry($0)?.isBelow(domain) ?? false }
    }
  }

  /// A DNS entry read as host names are, with a wildcard as its whole left-most label kept
  /// apart; nil for an entry that covers nothing (a partial wildcard such as `f*.example.com`, a
  /// wildcard over fewer than two labels or over a label OpenSSL would not match, a trailing dot,
  /// an empty label).
  private struct Entry {
    /// The name without the wildcard label.
    let name: String
    let isWildcard: Bool

    /// Whether every name the entry covers is below `domain` (`*.example.com` is below
    /// `example.com`; `example.com` itself is not).
    func isBelow(_ domain: String) -> Bool {
      name.hasSuffix("." + domain) || (isWildcard && name == domain)
    }

    /// RFC 6125 6.4.3: a wildcard covers exactly one left-most label, of letters, digits and
    /// hyphens (what OpenSSL lets it match).
    func covers(_ host: String) -> Bool {
      guard isWildcard else { return host == name }
      guard let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
      let label = host[..<dot].utf8
      guard label.allSatisfy(AltName.isLetterDigitOrHyphen) else { return false }
      return host[host.index(after: dot)...] == name
    }
  }

  private static func entry(_ text: String) -> Entry? {
    // A trailing dot: OpenSSL compares the entry as written, and the host never has one.
    guard !text.hasSuffix(".") else { return nil }
    let isWildcard = text.hasPrefix("*.")
    let rest = isWildcard ? String(text.dropFirst(2)) : text
    if isWildcard {
      // OpenSSL's valid_star: two labels at least after the star, each of letters, digits and
      // hyphens (no underscore), none starting or ending with a hyphen.
      let labels = rest.split(separator: ".", omittingEmptySubsequences: false)
      guard labels.count >= 2,
        labels.allSatisfy({ label in
          !label.isEmpty && label.utf8.allSatisfy(isLetterDigitOrHyphen) && label.first != "-" && label.last != "-"
        })
      else { return nil }
    }
    guard let name = host(rest), !name.isIPAddress else { return nil }
    return Entry(name: name.normalized, isWildcard: isWildcard)
  }

  private static func isLetterDigitOrHyphen(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
  }

  private static func host(_ text: String) -> HostName? {
    guard case .success(let name) = HostName.parse(text) else { return nil }
    return name
  }
}
