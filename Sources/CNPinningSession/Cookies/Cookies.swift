import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cookies for one hop of a request, from and into a cookie storage, under the rules of
/// RFC 6265bis as browsers apply them — whoever else (FoundationNetworking) adds or keeps them:
///
/// - **Sent**: only cookies whose domain and path match the URL and that have not expired;
///   `Secure` ones only over https; none whose `Domain` is a public suffix (a cookie planted on
///   `.com` reaches no one through the session).
/// - **Kept**: at most ``perResponse`` cookies of one response, in order (the rest are dropped: a
///   response of thousands of `Set-Cookie` lines costs a bounded amount); none larger than
///   ``maximumSize``; a `Secure` cookie (or a `__Secure-`/`__Host-` one) only from https, and a
///   plain-http response cannot replace one; a `Domain` that is a public suffix is refused (or,
///   when it is the host itself, the cookie is kept for that host alone); `__Host-` cookies carry
///   no `Domain` and have the path `/`. When the cookie's site (its registrable domain: every
///   host under `example.co.uk` counts together, and each under a private suffix such as
///   `github.io` is a site of its own) already holds ``perSite`` cookies, the site's oldest goes
///   to make room. When the storage holds `total`, room is made in a site over its fair share
///   (`max(fairShareFloor, total / sites)`, the sites in the jar counted), the one holding the
///   most; when no site is over it, in the site least recently used (a site is used when a
///   response sets its cookies or a request sends them); in either, its oldest cookie goes.
///   Expired cookies go first, and a plain-http response never pushes out a `Secure` cookie.
///   **The promise** (RFC 6265bis §5.7's intent): the total cap never takes a site's cookies up
///   to its fair share while a site used less recently holds any, so a crowd of one-cookie
///   sites evicts its own members before a recently used site's session cookies; memory stays
///   within `total` cookies of at most ``maximumSize`` bytes.
package enum Cookies {
  /// The most cookies kept from one response (RFC 6265 asks for at least 50 per domain).
  static let perResponse = 50
  /// The most cookies kept for one site (registrable domain): past it, the site's oldest go.
  static let perSite = 50
  /// The most cookies a storage is made to hold (RFC 6265's minimum for user agents: 3000).
  static let total = 3000
  /// The fewest cookies a site's fair share of a full jar holds, however many sites share it.
  static let fairShareFloor = 10
  /// The largest cookie kept: name, value and attributes (RFC 6265's minimum: 4096 bytes).
  static let maximumSize = 4096

  /// The `Cookie` header value for `request` from `storage`: nil when there is no storage, the
  /// request opts out or sets its own `Cookie` (in `fields`, the fields the hop sends: the
  /// request's when nil), or nothing is stored for its URL.
  package static func header(
    for request: borrowing SessionRequest, sending fields: [CNHTTPField]? = nil, at target: RequestTarget,
    from storage: HTTPCookieStorage?
  ) -> String? {
    guard let storage, request.handlesCookies,
      !(fields ?? request.fields).contains(where: { FieldName.key($0.name) == "cookie" })
    else { return nil }
    let url = request.url
    let path = url.path.isEmpty ? "/" : url.path
    let now = Date()
    // Looked up, as kept, under the canonical host.
    let cookies = (storage.cookies(for: target.connectionURL) ?? []).filter { cookie in
      (target.isHTTPS || !cookie.isSecure) && (cookie.expiresDate.map { $0 > now } ?? true)
        && domainMatches(cookie, host: target.host) && pathMatches(cookie.path, path)
    }
    guard !cookies.isEmpty else { return nil }
    CookieAges.shared.used(site: site(of: cookies[0]), in: storage)
    return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
  }

  /// Keeps the cookies `response` sets, for `target`, under the rules above (for a request that
  /// handles cookies: `SessionRequest.handlesCookies`).
  static func store(from response: TransferOutcome, at target: RequestTarget, in storage: HTTPCookieStorage?) {
    guard let storage, let setCookie = response.value(forField: "Set-Cookie") else { return }
    // Foundation reads only this field (its repeats joined, as URLSession reports them).
    let fields = ["Set-Cookie": setCookie]
    // Read for the canonical host, so that a host-only cookie belongs to it however the URL
    // spelled it (`API.Test.`, an IPv4-mapped address).
    let offered = HTTPCookie.cookies(withResponseHeaderFields: fields, for: target.connectionURL).prefix(perResponse)
    let kept: [HTTPCookie] = offered.compactMap { cookie in accepted(cookie, from: target) }
    guard !kept.isEmpty else { return }
    let stored = storage.cookies ?? []
    let ages = CookieAges.shared
    // The jar by site, worked out once per response.
    var bySite: [String: [HTTPCookie]] = [:]
    let domains = stored.map(bareDomain)
    for (cookie, site) in zip(stored, ages.sites(of: domains, in: storage, placing: site(ofDomain:))) {
      bySite[site, default: []].append(cookie)
    }
    ages.keepOnly(stored, sites: Set(bySite.keys), domains: Set(domains), in: storage)
    var count = stored.count
    let now = Date()
    for cookie in kept {
      let site = self.site(of: cookie)
      let same = { (other: HTTPCookie) in other.name == cookie.name && other.domain == cookie.domain && other.path == cookie.path
      }
      if let replaces = bySite[site]?.first(where: same) {
        // A plain-http response leaves a Secure cookie alone.
        if replaces.isSecure && !target.isHTTPS { continue }
        bySite[site]?.removeAll(where: same)
        count -= 1
      } else {
        if !target.isHTTPS,
          bySite[site]?.contains(where: { $0.isSecure && $0.name == cookie.name && overlaps($0, cookie) }) == true
        {
          continue
        }
        // Room is made in the new cookie's own site when that is full, else, when the jar is,
        // in the sites that give it up first (`sitesInEvictionOrder`).
        let sites: [String]
        if bySite[site, default: []].count >= perSite {
          sites = [site]
        } else if count >= total {
          sites = sitesInEvictionOrder(bySite, adding: site, uses: ages.siteUses(in: storage))
        } else {
          sites = []
        }
        if !sites.isEmpty {
          // RFC 6265bis: a cookie from plain http never pushes out a Secure one.
          let evictable = sites.lazy.compactMap { site in
            ages.oldestFirst(bySite[site, default: []].filter { target.isHTTPS || !$0.isSecure }, in: storage, now: now).first
          }
          guard let evicted = evictable.first else { continue }
          storage.deleteCookie(evicted)
          bySite[self.site(of: evicted)]?.removeAll { $0 === evicted }
          count -= 1
        }
      }
      storage.setCookie(cookie)
      ages.stored(cookie, in: storage)
      ages.used(site: site, in: storage)
      bySite[site, default: []].append(cookie)
      count += 1
    }
  }

  /// The order in which the sites of a full jar give up a cookie for one of `newSite`'s: those
  /// over their fair share (`max(fairShareFloor, total / sites)`), holding the most first; then
  /// the others, least recently used first (by `uses`; ties: holding the most, then by name).
  static func sitesInEvictionOrder(_ bySite: [String: [HTTPCookie]], adding newSite: String, uses: [String: UInt64])
    -> [String]
  {
    let siteCount = bySite.count + (bySite[newSite] == nil ? 1 : 0)
    let share = max(fairShareFloor, total / siteCount)
    let held = bySite.filter { !$0.value.isEmpty }.map { (site: $0.key, count: $0.value.count, used: uses[$0.key] ?? 0) }
    let over = held.filter { $0.count > share }.sorted { ($1.count, $0.used, $0.site) < ($0.count, $1.used, $1.site) }
    let within = held.filter { $0.count <= share }.sorted { ($0.used, $1.count, $0.site) < ($1.used, $0.count, $1.site) }
    return (over + within).map(\.site)
  }

  /// The site a cookie belongs to, for the caps: the registrable domain of its domain
  /// (`example.co.uk` for `.www.example.co.uk`), or the domain itself when it has none (an IP
  /// address, a public suffix kept for its own host).
  private static func site(of cookie: HTTPCookie) -> String { site(ofDomain: bareDomain(cookie)) }

  private static func site(ofDomain domain: String) -> String {
    if domain.last.map({ $0.isNumber }) == true || domain.contains(":") { return domain }
    return PublicSuffixList.registrableDomain(of: domain) ?? domain
  }

  /// `cookie` as it may be kept from a response for `target`, or nil when it must be refused.
  static func accepted(_ cookie: HTTPCookie, from target: RequestTarget) -> HTTPCookie? {
    let size = cookie.name.utf8.count + cookie.value.utf8.count + cookie.domain.utf8.count + cookie.path.utf8.count
    guard size <= maximumSize, !cookie.name.isEmpty || !cookie.value.isEmpty else { return nil }
    let wantsSecure = cookie.isSecure || cookie.name.hasPrefix("__Secure-") || cookie.name.hasPrefix("__Host-")
    if wantsSecure && !(target.isHTTPS && cookie.isSecure) { return nil }
    let hasDomain = cookie.domain.hasPrefix(".")
    if cookie.name.hasPrefix("__Host-") && (hasDomain || cookie.path != "/") { return nil }
    guard hasDomain else { return bareDomain(cookie) == target.host ? cookie : nil }
    let domain = bareDomain(cookie)
    // The host must lie in the cookie's domain; an address only names itself.
    guard domain == target.host || (!target.hostName.isIPAddress && target.host.hasSuffix("." + domain)) else { return nil }
    if target.hostName.isIPAddress || PublicSuffixList.isPublicSuffix(domain) {
      // A public suffix (or an address) as Domain: kept for the host alone when it is the host.
      guard domain == target.host else { return nil }
      var properties = cookie.properties ?? [:]
      properties[.domain] = target.host
      return HTTPCookie(properties: properties)
    }
    return cookie
  }

  /// Whether `cookie` may be sent to `host`: its own host, or, for a `Domain` cookie, a name in
  /// that domain — never when the domain is a public suffix.
  private static func domainMatches(_ cookie: HTTPCookie, host: String) -> Bool {
    let domain = bareDomain(cookie)
    guard cookie.domain.hasPrefix(".") else { return domain == host }
    guard !PublicSuffixList.isPublicSuffix(domain) else { return false }
    return host == domain || host.hasSuffix("." + domain)
  }

  /// RFC 6265 §5.1.4.
  private static func pathMatches(_ cookiePath: String, _ path: String) -> Bool {
    if cookiePath == path || cookiePath.isEmpty { return true }
    guard path.hasPrefix(cookiePath) else { return false }
    return cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")
  }

  /// Whether two cookies' domains contain one another.
  private static func overlaps(_ first: HTTPCookie, _ second: HTTPCookie) -> Bool {
    let (a, b) = (bareDomain(first), bareDomain(second))
    return a == b || a.hasSuffix("." + b) || b.hasSuffix("." + a)
  }

  /// The cookie's domain without the leading dot of a `Domain` cookie, in lower case.
  private static func bareDomain(_ cookie: HTTPCookie) -> String {
    (cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()) : cookie.domain).lowercased()
  }
}

/// Where one request's cookies come from and its responses' go.
package enum CookieSource {
  /// The session configuration's `httpCookieStorage` (none when it has none).
  case configuration
  /// A storage of the caller's own, or none: what the URLSession protocol's task uses.
  case storage(HTTPCookieStorage?)

  /// The storage this source names under `configuration`.
  func storage(under configuration: CNPinnedSessionConfiguration) -> HTTPCookieStorage? {
    switch self {
    case .configuration: configuration.httpCookieStorage
    case .storage(let storage): storage
    }
  }
}
