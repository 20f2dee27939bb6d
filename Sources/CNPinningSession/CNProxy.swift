import Foundation

/// How a session reaches servers: directly, or through an HTTP or HTTPS proxy. Through a proxy,
/// https requests travel in a CONNECT tunnel, and the pins and host-name check are judged on
/// the origin's chain inside it, never on the proxy's.
public enum CNProxy: Sendable, Equatable {
  /// Always connect directly, whatever the environment says.
  case direct
  /// The proxy the environment names, read as curl (and Foundation's URLSession on Linux) reads
  /// it: `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy` for http URLs, else
  /// `all_proxy`/`ALL_PROXY`; hosts listed in `no_proxy`/`NO_PROXY` go direct. Read once, when
  /// the session is created. An `https://` proxy is verified against the system trust store.
  /// On Apple platforms: the system's proxy settings, as URLSession uses them.
  case environment
  /// An HTTP proxy. Credentials go to the proxy only (`Proxy-Authorization` on the CONNECT).
  case http(host: String, port: Int, credentials: CNProxyCredentials? = nil)
  /// An HTTPS proxy: a TLS connection to the proxy, verified against `trust` and the proxy's own
  /// host name (pins do not apply to it), with the tunnel to the origin inside it.
  case https(host: String, port: Int, trust: CNTrust = .system, credentials: CNProxyCredentials? = nil)
}

extension CNProxy {
  /// A proxy written as curl takes one (`-x`, `https_proxy`): `host[:port]` or
  /// `scheme://[user:password@]host[:port]`, percent-encoded; `http` (port 1080 by default, as
  /// curl's) or `https` (443), verified against `trust`. Throws `invalidArgument` for any other
  /// scheme or a URL without a host.
  public init(url: String, trust: CNTrust = .system) throws(CNPinnedSessionError) {
    try self.init(url: url, trust: trust, source: "proxy URL")
  }

  init(url text: String, trust: CNTrust = .system, source: String) throws(CNPinnedSessionError) {
    let full = text.contains("://") ? text : "http://" + text
    guard let components = URLComponents(string: full), let scheme = components.scheme?.lowercased() else {
      throw .invalidArgument("\(source) is not a proxy URL")
    }
    guard scheme == "http" || scheme == "https" else {
      throw .invalidArgument("\(source): \(scheme):// proxies are not supported (only http:// and https://)")
    }
    let credentials = components.percentEncodedUser.map { user in
      CNProxyCredentials(
        user: user.removingPercentEncoding ?? user,
        password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 } ?? "")
    }
    let host = components.host ?? ""
    let port = components.port ?? (scheme == "https" ? 443 : 1080)
    self =
      scheme == "https"
      ? .https(host: host, port: port, trust: trust, credentials: credentials)
      : .http(host: host, port: port, credentials: credentials)
  }
}

/// A user name and password for a proxy's Basic authentication.
public struct CNProxyCredentials: Sendable, Equatable, CustomStringConvertible {
  /// The user name.
  public let user: String
  /// The password; never printed.
  public let password: String

  /// Credentials for Basic authentication to the proxy.
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }

  /// The user name only: the password is never printed.
  public var description: String { "\(user):***" }
}
