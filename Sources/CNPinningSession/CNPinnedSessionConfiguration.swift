import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Settings of a `CNPinnedSession`, named after their `URLSessionConfiguration` counterparts.
public struct CNPinnedSessionConfiguration: Sendable {
  /// The anchors chains are verified against: the system's by default.
  public var trust: CNTrust = .system
  /// What happens to hosts without pins: allowed (with normal trust and host-name checks) by
  /// default; `.deny` refuses them.
  public var unpinnedHosts: CNUnpinnedHostPolicy = .allow
  /// The App Transport Security-like policy; on by default.
  public var transportSecurity = CNTransportSecurity()
  /// Seconds a request may take to connect, and then wait for each next byte either way, before
  /// it fails with `timedOut`: URLSession's idle timeout, which any byte restarts (a server that
  /// sends a byte a second is ended by ``timeoutIntervalForResource``). A request's own
  /// `timeoutInterval` wins when it is shorter. Any value is taken: zero, negative and NaN mean
  /// no limit, and anything beyond a year (`.infinity` included) is a year.
  public var timeoutIntervalForRequest: TimeInterval = 60
  /// Seconds a whole request (with its body) may take; bounded as ``timeoutIntervalForRequest``.
  public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
  /// The most connections open at once to one host and port (HTTP/2 streams share one); further
  /// requests wait for a connection to be free. 6 by default, as URLSessionConfiguration's; at
  /// least 1.
  public var httpMaximumConnectionsPerHost = 6
  /// The most bytes a response body held in memory (`data(for:)`) may have, counted after
  /// decoding (gzip, br, …), so that a small compressed body cannot expand without bound.
  /// Beyond it the request fails with `responseTooLarge`. 32 MiB by default; use `download(for:)`
  /// or `bytes(for:)` for larger bodies.
  public var maximumResponseBodySize = 32 << 20
  /// The most bytes a download (`download(for:)`) may write, or `bytes(for:)` may pass on,
  /// counted after decoding. 4 GiB by default.
  public var maximumDownloadSize = 4 << 30
  /// Whether 3xx responses with a `Location` are followed. Each hop is judged by its own host's pins.
  public var followsRedirects = true
  /// How many redirects one request may follow before failing with `tooManyRedirects`.
  public var maximumRedirects = 16
  /// Headers added to every request that does not set them itself.
  public var httpAdditionalHeaders: [String: String] = [:]
  /// Names of headers that carry credentials, beyond `Authorization`, `Proxy-Authorization` and
  /// `Cookie` (compared case-insensitively). All of them go only to the origin of the original
  /// request: once a redirect leaves it, they are dropped for the rest of the chain, whether the
  /// request or ``httpAdditionalHeaders`` set them.
  public var credentialHeaders: [String] = []
  /// Where cookies are kept: each hop (redirects included) sends the stored cookies for its URL
  /// unless the request sets its own `Cookie` header or `httpShouldHandleCookies` is false, and
  /// stores the cookies its response sets; `Secure` cookies go over https only. nil (the default)
  /// sends and keeps no cookies.
  public var httpCookieStorage: HTTPCookieStorage?
  /// Fixed addresses for host names, like curl's `--resolve host:port:address`. The URL's host is
  /// still the name that TLS verifies and pins are looked up for. Linux only: on Apple platforms,
  /// where URLSession resolves names itself, a session with overrides is refused.
  public var resolve: [CNHostOverride] = []

  /// The proxy requests go through. `.environment` by default, as curl and Foundation's
  /// URLSession on Linux read `https_proxy` and friends.
  public var proxy: CNProxy = .environment
  /// Hosts that bypass the proxy, as curl's `--noproxy`: a name matches itself and its
  /// subdomains (a leading dot is ignored), an IP address matches only itself, `*` matches
  /// everything. nil uses `no_proxy`/`NO_PROXY` with `.environment` and nothing otherwise; a
  /// list (even empty) replaces them. Linux only: on Apple platforms the system's proxy
  /// settings say which hosts bypass the proxy, and a list with `.environment` is refused.
  public var noProxy: [String]? = nil

  /// Receives the session's failure reports (pin failures and expiries) and keeps the limits on
  /// uploading them to a `reportURI`. nil: the session makes its own, without a handler. Give
  /// sessions one reporter to hear of every failure in one place and share the upload limits.
  public var failureReporter: CNPinningReporter? = nil

  /// The certificate rules beyond OpenSSL's: by default the Web-PKI profile (the leaf's CN among
  /// its SAN entries, serverAuth, serial numbers, key identifiers…) for the system's trust store
  /// and none with custom anchors; `.webPKI` everywhere, or `.openSSL` nowhere. Linux only (on
  /// Apple platforms the system's trust evaluation applies Apple's rules).
  public var certificateProfile: CNCertificateProfile = .automatic

  /// What the session takes for now when it verifies chains and judges pins (tests move it to
  /// see a certificate or pins expire without waiting). Linux only.
  package var clock: @Sendable () -> Date = { Date() }

  /// The longest a request that finds the session idle drives libcurl on its own thread before
  /// it hands the transfer to the session's network thread (`CurlMultiLoop`); zero never does.
  /// Tests lengthen it to make that path certain, and the benchmark's counted runs, which
  /// valgrind slows fiftyfold, to take the path a real run takes. Linux only.
  @_spi(Measurement) public var borrowBudget: Duration = .milliseconds(1)

  /// The defaults, as `default`.
  public init() {}

  /// The defaults.
  public static var `default`: CNPinnedSessionConfiguration { CNPinnedSessionConfiguration() }
}

extension CNPinnedSessionConfiguration: Equatable {
  /// Whether two configurations make the same session: every setting equal, and the same cookie
  /// storage and failure reporter objects (or none for both).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.trust == rhs.trust && lhs.unpinnedHosts == rhs.unpinnedHosts
      && lhs.transportSecurity == rhs.transportSecurity && lhs.timeoutIntervalForRequest == rhs.timeoutIntervalForRequest
      && lhs.timeoutIntervalForResource == rhs.timeoutIntervalForResource
      && lhs.httpMaximumConnectionsPerHost == rhs.httpMaximumConnectionsPerHost
      && lhs.maximumResponseBodySize == rhs.maximumResponseBodySize && lhs.maximumDownloadSize == rhs.maximumDownloadSize
      && lhs.followsRedirects == rhs.followsRedirects && lhs.maximumRedirects == rhs.maximumRedirects
      && lhs.httpAdditionalHeaders == rhs.httpAdditionalHeaders && lhs.credentialHeaders == rhs.credentialHeaders
      && lhs.httpCookieStorage === rhs.httpCookieStorage && lhs.failureReporter === rhs.failureReporter
      && lhs.resolve == rhs.resolve && lhs.proxy == rhs.proxy
      && lhs.noProxy == rhs.noProxy && lhs.certificateProfile == rhs.certificateProfile
      && lhs.borrowBudget == rhs.borrowBudget
  }
}
