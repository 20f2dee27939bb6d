import CNPinning
import Foundation

/// A hop's URL, checked and canonicalised once, before anything looks at its host: the pins, the
/// transport-security exceptions and the unpinned-host rule are looked up with ``hostName``, TLS
/// verifies `host`, and the transport connects to ``connectionURL``. So every spelling of a host —
/// upper case, a trailing dot, an IPv6 address written out, an IPv4-mapped IPv6 address — is one
/// host for all of them, and none can reach a server under another host's rules. An object, so
/// that handing it on is a retain, not a copy of every field.
package final class RequestTarget: Sendable {
  /// The URL as the caller gave it: what responses and errors report.
  package let url: URL
  /// The URL with its host in canonical form: what the transport connects to.
  package let connectionURL: URL
  package let isHTTPS: Bool
  package let hostName: HostName
  package let port: Int

  /// The canonical host: ASCII lower case, no trailing dot, IPv6 in RFC 5952 form without
  /// brackets, an IPv4-mapped IPv6 address as the IPv4 address.
  package var host: String { hostName.normalized }

  /// `scheme://host:port` with the canonical host: where credentials and cookies belong.
  var origin: String { "\(isHTTPS ? "https" : "http")://\(host):\(port)" }

  /// Checks `url`: an absolute `http` or `https` URL whose host parses (`127.1`, `2130706433`
  /// and the deprecated IPv4-compatible IPv6 forms do not: they are refused, saying why).
  package init(_ url: URL?) throws(CNPinnedSessionError) {
    guard let url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
      let written = url.host(percentEncoded: true), !written.isEmpty
    else { throw .invalidURL(url?.absoluteString ?? "") }
    // Foundation gives an IPv6 host without its brackets; take them off if another does not.
    let bare = HostName.unbracketed(written)
    // The host as libcurl would read it: percent-encoding is decoded first (and a host that
    // still needs it is refused by the parse).
    let decoded = bare.utf8.contains(UInt8(ascii: "%")) ? bare.removingPercentEncoding ?? bare : bare
    switch HostName.parse(decoded) {
    case .success(let name): hostName = name
    case .failure(let invalid): throw .invalidHost(host: decoded, reason: invalid.reason)
    }
    self.url = url
    isHTTPS = scheme == "https"
    port = url.port ?? (isHTTPS ? 443 : 80)
    guard (1...65535).contains(port) else { throw .invalidURL(url.absoluteString) }
    if bare == hostName.normalized {
      connectionURL = url
    } else {
      // Another spelling: the same URL with the canonical host (brackets for IPv6).
      let canonical = hostName.authority
      guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
        throw .invalidURL(url.absoluteString)
      }
      components.percentEncodedHost = canonical
      guard let connectionURL = components.url else { throw .invalidURL(url.absoluteString) }
      self.connectionURL = connectionURL
    }
  }
}
