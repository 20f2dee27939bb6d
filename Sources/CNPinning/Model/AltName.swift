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
  /// it does not decode.
  func matches(_ certificate: CNCertificate) -> Bool {
    guard case .present(let names, _) = certificate.subjectAlternativeNames else { return false }
    switch self {
    case .host(let host) where host.isIPAddress:
      return names.ipAddresses.contains { Self.host($0)?.normalized == host.normalized }
    case .host(let host):
      return names.dnsNames.contains { Self.entry($0).map { $0.covers(host.normalized) } ?? false }
    case .below(let domain):
      return names.dnsNames.contains { Self.entry($0)?.isBelow(domain) ?? false }
    }
  }

  /// A DNS entry read as host names are, with a wildcard as its whole left-most label kept
  /// apart; nil for an entry that is neither (a partial wildcard such as `f*.example.com`, a
  /// name with an empty label), which covers nothing.
  private struct Entry {
    /// The name without the wildcard label.
    let name: String
    let isWildcard: Bool

    /// Whether every name the entry covers is below `domain` (`*.example.com` is below
    /// `example.com`; `example.com` itself is not).
    func isBelow(_ domain: String) -> Bool {
      name.hasSuffix("." + domain) || (isWildcard && name == domain)
    }

    /// RFC 6125 6.4.3: a wildcard covers exactly one left-most label.
    func covers(_ host: String) -> Bool {
      guard isWildcard else { return host == name }
      guard let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
      return host[host.index(after: dot)...] == name
    }
  }

  private static func entry(_ text: String) -> Entry? {
    let isWildcard = text.hasPrefix("*.")
    guard let name = host(isWildcard ? String(text.dropFirst(2)) : text), !name.isIPAddress else { return nil }
    return Entry(name: name.normalized, isWildcard: isWildcard)
  }

  private static func host(_ text: String) -> HostName? {
    guard case .success(let name) = HostName.parse(text) else { return nil }
    return name
  }
}
