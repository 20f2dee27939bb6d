import CNPinning
import Foundation

/// The proxy one request goes through, as the transport is told.
package struct ProxyRoute: Sendable, Equatable, CustomStringConvertible {
  package let isHTTPS: Bool
  /// Lower-cased, IPv6 without brackets.
  package let host: String
  package let port: Int
  package let credentials: CNProxyCredentials?
  /// What the proxy's own certificate is verified against (an HTTPS proxy).
  package let trust: CNTrust

  /// `http://host:port` or `https://host:port`; credentials travel separately.
  package var url: String { "\(isHTTPS ? "https" : "http")://\(HostName.authority(host, port: port))" }
  package var description: String { "proxy \(url)" }
}

/// A session's proxy settings, resolved once: which proxy each request takes, or none.
package struct ProxyRules: Sendable {
  private let forHTTPS: ProxyRoute?
  private let forHTTP: ProxyRoute?
  private let bypassesAll: Bool
  private let bypass: [String]

  /// Reads `proxy` (and, for `.environment`, the variables `environment` looks up by name).
  /// Throws `invalidArgument` for a proxy that cannot be used (an unsupported scheme, no host, a
  /// bad port), naming where it came from.
  package init(_ proxy: CNProxy, noProxy: [String]?, environment: (String) -> String?) throws(CNPinnedSessionError) {
    var exceptions = noProxy
    switch proxy {
    case .direct:
      (forHTTPS, forHTTP) = (nil, nil)
    case .http, .https:
      let route = try Self.route(proxy, source: "the proxy")
      (forHTTPS, forHTTP) = (route, route)
    case .environment:
      func variable(_ names: String...) -> (name: String, value: String)? {
        for name in names { if let value = environment(name), !value.isEmpty { return (name, value) } }
        return nil
      }
      // curl reads only the lower-case http_proxy: a CGI server sets HTTP_PROXY from a request header.
      let all = try variable("all_proxy", "ALL_PROXY").map(Self.parse)
      forHTTPS = try variable("https_proxy", "HTTPS_PROXY").map(Self.parse) ?? all
      forHTTP = try variable("http_proxy").map(Self.parse) ?? all
      if exceptions == nil {
        exceptions = variable("no_proxy", "NO_PROXY").map { $0.value.split(separator: ",").map(String.init) }
      }
    }
    let entries = (exceptions ?? []).map(Self.normalized).filter { !$0.isEmpty }
    bypassesAll = entries.contains("*")
    bypass = entries
  }

  /// A variable of this process's environment. Read one by one rather than through Foundation's
  /// whole-environment dictionary, which costs a new process a quarter of a millisecond.
  package static func processEnvironment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

  /// The proxy for a request to `host` (lower-cased, IPv6 without brackets), or nil to go direct.
  package func route(isHTTPS: Bool, host: String) -> ProxyRoute? {
    guard let route = isHTTPS ? forHTTPS : forHTTP, !bypassesAll else { return nil }
    guard !bypass.isEmpty else { return route }
    let name = Self.normalized(host)
    // A name matches itself and its subdomains; an IP address matches only itself.
    let isAddress = (try? HostName.parse(name).get())?.isIPAddress ?? false
    if bypass.contains(where: { name == $0 || (!isAddress && name.hasSuffix("." + $0)) }) { return nil }
    return route
  }

  /// Every trust an HTTPS proxy of these rules is verified against.
  package var proxyTrusts: [CNTrust] {
    var trusts: [CNTrust] = []
    for route in [forHTTPS, forHTTP].compactMap({ $0 }) where route.isHTTPS && !trusts.contains(route.trust) {
      trusts.append(route.trust)
    }
    return trusts
  }

  private static func normalized(_ entry: String) -> String {
    var text = HostName.unbracketed(entry.trimmingCharacters(in: .whitespaces).lowercased())
    while text.hasPrefix(".") { text.removeFirst() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// A proxy URL from the environment, read as curl reads one.
  private static func parse(_ variable: (name: String, value: String)) throws(CNPinnedSessionError) -> ProxyRoute {
    try route(CNProxy(url: variable.value, source: variable.name), source: variable.name)!
  }

  /// The route of an explicit proxy; nil for `.direct` and `.environment`.
  private static func route(_ proxy: CNProxy, source: String) throws(CNPinnedSessionError) -> ProxyRoute? {
    switch proxy {
    case .direct, .environment: return nil
    case .http(let host, let port, let credentials):
      return try route(isHTTPS: false, host: host, port: port, credentials: credentials, trust: .system, source: source)
    case .https(let host, let port, let trust, let credentials):
      return try route(isHTTPS: true, host: host, port: port, credentials: credentials, trust: trust, source: source)
    }
  }

  private static func route(
    isHTTPS: Bool, host: String, port: Int, credentials: CNProxyCredentials?, trust: CNTrust, source: String
  ) throws(CNPinnedSessionError) -> ProxyRoute {
    let bare = HostName.unbracketed(host)
    if case .failure(let invalid) = HostName.parse(bare) {
      throw .invalidArgument("\(source): \"\(bare)\" is not a proxy host: \(invalid.reason)")
    }
    guard (1...65535).contains(port) else { throw .invalidArgument("\(source): \(port) is not a port") }
    return ProxyRoute(isHTTPS: isHTTPS, host: bare.lowercased(), port: port, credentials: credentials, trust: trust)
  }
}
