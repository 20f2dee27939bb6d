import Testing

@testable import CNPinningSession

// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
@testable import CNPinningCurl
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cookies from and into a cookie storage, hop by hop, as URLSession handles them.
@Suite("Cookies")
struct CookieTests {
  /// A server for `api.test` and `localhost.test` that sets a cookie on /login (and on /other,
  /// for the host it is asked as), redirects /hop to /me, and answers with the Cookie it got.
  static func fixture(storage: HTTPCookieStorage?) throws -> (LocalTLSServer, CNPinnedSession) {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { request in
          let port = request.header("Host")!.split(separator: ":").last!
          switch request.target {
          case "/login":
            return .init(
              headers: [.init("Set-Cookie", "sid=abc; Path=/; Secure"), .init("Set-Cookie", "theme=dark; Path=/")],
              body: Data("in".utf8))
          case "/hop": return .init(status: 302, headers: [.init("Location", "/me"), .init("Set-Cookie", "hop=1; Path=/")])
          case "/away": return .redirect(to: "https://localhost.test:\(port)/other")
          case "/other":
            return .init(headers: [.init("Set-Cookie", "local=1; Path=/")], body: Data((request.header("Cookie") ?? "-").utf8))
          default: return .text(request.header("Cookie") ?? "-")
          }
        }))
    var configuration = resolving(["api.test", "localhost.test"], to: server).trusting(.customAnchors([pki.root.certificate]))
    configuration.httpCookieStorage = storage
    return (server, try CNPinnedSession(manager: try matchingPins(), configuration: configuration))
  }

  static func body(_ session: CNPinnedSession, _ server: LocalTLSServer, _ path: String, host: String = "api.test")
    async throws -> String
  {
    String(try await session.data(from: server.url(path, hostName: host)).0)
  }

  static func storage() -> HTTPCookieStorage { URLSessionConfiguration.ephemeral.httpCookieStorage! }

  @Test func cookiesAResponseSetsAreSentOnLaterRequests() async throws {
    let (server, session) = try Self.fixture(storage: Self.storage())
    #expect(try await Self.body(session, server, "/me") == "-")
    _ = try await Self.body(session, server, "/login")
    let cookie = try await Self.body(session, server, "/me")
    #expect(Set(cookie.components(separatedBy: "; ")) == ["sid=abc", "theme=dark"])
  }

  @Test func withoutAStorageNoCookieIsKeptOrSent() async throws {
    let (server, session) = try Self.fixture(storage: nil)
    _ = try await Self.body(session, server, "/login")
    #expect(try await Self.body(session, server, "/me") == "-")
  }

  @Test func eachHopOfARedirectSendsAndKeepsItsCookies() async throws {
    let storage = Self.storage()
    let (server, session) = try Self.fixture(storage: storage)
    // The redirect's own cookie reaches the next hop.
    #expect(try await Self.body(session, server, "/hop") == "hop=1")
    // Across origins, each host gets only its own cookies, whatever the chain carried.
    _ = try await Self.body(session, server, "/login")
    #expect(try await Self.body(session, server, "/away") == "-")
    #expect(storage.cookies(for: URL(string: "https://localhost.test/")!)?.map(\.name) == ["local"])
    #expect(try await Self.body(session, server, "/other", host: "localhost.test") == "local=1")
  }

  @Test func theRequestsOwnCookieOrItsOptingOutWins() async throws {
    let (server, session) = try Self.fixture(storage: Self.storage())
    _ = try await Self.body(session, server, "/login")
    var request = URLRequest(url: server.url("/me", hostName: "api.test"))
    request.setValue("mine=1", forHTTPHeaderField: "Cookie")
    #expect(String(try await session.data(for: request).0) == "mine=1")
    request.setValue(nil, forHTTPHeaderField: "Cookie")
    request.httpShouldHandleCookies = false
    #expect(String(try await session.data(for: request).0) == "-")
  }

  /// FoundationNetworking's storage offers `Secure` cookies to http URLs; the session does not
  /// send them there.
  @Test func secureCookiesNeverGoOverPlainHTTP() async throws {
    let pki = try TestPKI(leaf: "web.test", dnsNames: ["web.test"])
    let echo: @Sendable (LocalTLSServer.Request) -> LocalTLSServer.Response = { request in
      request.target == "/login"
        ? .init(headers: [.init("Set-Cookie", "sid=abc; Path=/; Secure"), .init("Set-Cookie", "theme=dark; Path=/")])
        : .text(request.header("Cookie") ?? "-")
    }
    let secure = try LocalTLSServer.start(.init(identity: pki.leaf, handler: echo))
    var plainSetup = LocalTLSServer.Configuration(identity: pki.leaf, handler: echo)
    plainSetup.behavior = .plainHTTP
    let plain = try LocalTLSServer.start(plainSetup)
    var configuration = CNPinnedSessionConfiguration()
    configuration.resolve = [
      CNHostOverride(host: "web.test", port: secure.port, address: "127.0.0.1"),
      CNHostOverride(host: "web.test", port: plain.port, address: "127.0.0.1"),
    ]
    configuration.trust = .customAnchors([pki.root.certificate])
    configuration.httpCookieStorage = Self.storage()
    configuration.transportSecurity = .disabled  // plain http at all
    let session = try CNPinnedSession(manager: nil, configuration: configuration)
    _ = try await session.data(from: secure.url("/login", hostName: "web.test"))
    #expect(String(try await session.data(from: plain.url("/me", hostName: "web.test")).0) == "theme=dark")
    #expect(
      Set(String(try await session.data(from: secure.url("/me", hostName: "web.test")).0).components(separatedBy: "; "))
        == ["sid=abc", "theme=dark"])
  }
}

/// RFC 6265bis as browsers apply it, on both paths (CNPinnedSession and URLSession through the
/// pinned configuration), against an attacker who can intercept any unpinned host.
@Suite("Cookie rules")
struct CookieRuleTests {
  /// One server for every name (each resolved to it), that sets on /set whatever cookies the
  /// test gives and answers any other path with the Cookie it got.
  final class Server: Sendable {
    let pki: TestPKI
    let tls: LocalTLSServer
    let plain: LocalTLSServer
    let names = ["api.test", "evil.test", "api.example.test", "www.example.test"]

    init(setCookies: [String]) throws {
      pki = try TestPKI(dnsNames: names)
      let handler: @Sendable (LocalTLSServer.Request) -> LocalTLSServer.Response = { request in
        request.target == "/set"
          ? .init(headers: setCookies.map { .init("Set-Cookie", $0) }, body: Data("set".utf8))
          : .text(request.header("Cookie") ?? "-")
      }
      tls = try LocalTLSServer.start(.init(identity: pki.leaf, handler: handler))
      var plainSetup = LocalTLSServer.Configuration(identity: pki.leaf, handler: handler)
      plainSetup.behavior = .plainHTTP
      plain = try LocalTLSServer.start(plainSetup)
    }

    /// Pins for api.test and api.example.test only; unpinned hosts allowed; plain http allowed.
    func configuration(storage: HTTPCookieStorage) throws -> CNPinnedSessionConfiguration {
      var configuration = CNPinnedSessionConfiguration()
      configuration.resolve = names.flatMap { name in
        [tls, plain].map { CNHostOverride(host: name, port: $0.port, address: "127.0.0.1") }
      }
      configuration.trust = .customAnchors([pki.root.certificate])
      configuration.httpCookieStorage = storage
      configuration.transportSecurity = .disabled
      return configuration
    }

    func manager() throws -> CNPinningManager {
      let links = [(CNChainLink.LinkType.prefixWithNumber, "Test Root X"), (.prefixWithNumber, "R"), (.exact, "api.test")]
      let chain = try CNChain(links.map { try CNChainLink($0.0, $0.1) })
      return try CNPinningManager(configuration: [
        "api.test": CNConfiguration([chain]), "api.example.test": CNConfiguration([chain]),
      ])
    }

    func url(_ host: String, _ path: String, https: Bool = true) -> URL {
      (https ? tls : plain).url(path, hostName: host)
    }
  }

  /// The two ways an app sends a request through the pins.
  enum Path: CaseIterable, Sendable {
    case pinnedSession, urlSession
  }

  /// `GET url` through `path`, returning the body (the Cookie the server got).
  static func get(_ url: URL, via path: Path, server: Server, storage: HTTPCookieStorage) async throws -> String {
    switch path {
    case .pinnedSession:
      let session = try CNPinnedSession(manager: try server.manager(), configuration: try server.configuration(storage: storage))
      return String(try await session.data(from: url).0)
    case .urlSession:
      let configuration = try URLSessionConfiguration.cnPinned(
        manager: try server.manager(), configuration: try server.configuration(storage: storage))
      configuration.httpCookieStorage = storage
      return String(try await URLSession(configuration: configuration).data(from: url).0)
    }
  }

  /// An intercepted unpinned host plants `sid=FIXED; Domain=test`: a cookie for every `.test` host,
  /// which FoundationNetworking's storage would keep and send to the pinned `api.test` (session
  /// fixation through the pinned channel). A public suffix is no cookie domain.
  @Test(arguments: Path.allCases)
  func cookiesTossedOntoAPublicSuffixNeverReachAPinnedHost(_ path: Path) async throws {
    let server = try Server(setCookies: ["sid=FIXED; Domain=test; Path=/", "own=1; Path=/"])
    let storage = CookieTests.storage()
    #expect(try await Self.get(server.url("evil.test", "/set"), via: path, server: server, storage: storage) == "set")
    #expect(try await Self.get(server.url("api.test", "/me"), via: path, server: server, storage: storage) == "-")
    #expect(try await Self.get(server.url("evil.test", "/me"), via: path, server: server, storage: storage) == "own=1")
    #expect((storage.cookies ?? []).map(\.name) == ["own"])
  }

  /// A `Secure` cookie the pinned host sets for its whole domain never goes to a plain-http
  /// sibling (FoundationNetworking added it to the request itself, ignoring `Secure`).
  @Test(arguments: Path.allCases)
  func secureCookiesOfAPinnedHostStayOffPlainHTTP(_ path: Path) async throws {
    let server = try Server(setCookies: ["sid=S; Secure; Domain=example.test; Path=/", "theme=dark; Domain=example.test"])
    let storage = CookieTests.storage()
    _ = try await Self.get(server.url("api.example.test", "/set"), via: path, server: server, storage: storage)
    let overHTTP = try await Self.get(
      server.url("www.example.test", "/me", https: false), via: path, server: server, storage: storage)
    #expect(overHTTP == "theme=dark")
    let overHTTPS = try await Self.get(server.url("www.example.test", "/me"), via: path, server: server, storage: storage)
    #expect(Set(overHTTPS.components(separatedBy: "; ")) == ["sid=S", "theme=dark"])
  }

  /// One response head of 5,000 distinct cookies (under the head limit): at most `perResponse`
  /// are kept, in order (with HTTPCookieStorage.shared the old code took 8–61 s and kept 8,659).
  @Test(arguments: Path.allCases)
  func aCookieStormKeepsAtMostFiftyCookies(_ path: Path) async throws {
    let server = try Server(setCookies: (0..<5000).map { "c\($0)=v; Path=/" })
    let storage = CookieTests.storage()
    _ = try await Self.get(server.url("api.test", "/set"), via: path, server: server, storage: storage)
    let kept = storage.cookies ?? []
    #expect(kept.count == Cookies.perResponse)
    #expect(Set(kept.map(\.name)) == Set((0..<Cookies.perResponse).map { "c\($0)" }))
  }

  /// What changes in the storage between a URLSession task's creation (when FoundationNetworking
  /// copies the storage's cookies into the request, `Secure` ones included) and its `resume()`.
  enum StorageChange: CaseIterable, Sendable {
    case sameHostCookie, otherDomainCookies, nothing
  }

  /// The `Cookie` header FoundationNetworking copied at task creation never decides what is sent:
  /// the pinned session derives it from the storage when the request goes, under RFC 6265bis and
  /// the request's `httpShouldHandleCookies`. The copy carried the `Secure` sid; a change to the
  /// storage made it differ from a fresh copy, and it was then sent verbatim over plain http
  /// (every run with a same-host cookie, and with cookie handling off).
  @Test(arguments: StorageChange.allCases, [true, false])
  func aCookieHeaderCopiedAtTaskCreationIsNeverSent(_ change: StorageChange, _ handlesCookies: Bool) async throws {
    let server = try Server(setCookies: ["sid=S; Secure; Domain=example.test; Path=/", "theme=dark; Domain=example.test; Path=/"])
    let storage = CookieTests.storage()
    _ = try await Self.get(server.url("api.example.test", "/set"), via: .urlSession, server: server, storage: storage)
    let configuration = try URLSessionConfiguration.cnPinned(
      manager: try server.manager(), configuration: try server.configuration(storage: storage))
    configuration.httpCookieStorage = storage
    let session = URLSession(configuration: configuration)
    var request = URLRequest(url: server.url("www.example.test", "/me", https: false))
    request.httpShouldHandleCookies = handlesCookies
    let body = Locked<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = session.dataTask(with: request) { data, _, _ in
      body.withLock { $0 = data.map { String(decoding: $0, as: UTF8.self) } }
      done.signal()
    }
    let copied = task.currentRequest?.value(forHTTPHeaderField: "Cookie") ?? ""
    #expect(copied.contains("sid=S"), "FoundationNetworking copies the Secure cookie: \(copied)")
    switch change {
    case .sameHostCookie:
      storage.setCookie(HTTPCookie(properties: [.name: "late", .value: "1", .domain: "www.example.test", .path: "/"])!)
    case .otherDomainCookies:
      for index in 0..<40 {
        storage.setCookie(HTTPCookie(properties: [.name: "c\(index)", .value: "1", .domain: "d\(index).test", .path: "/"])!)
      }
    case .nothing:
      break
    }
    task.resume()
    await offTheSharedThreads { _ = done.wait(timeout: .now() + 30) }
    let sent = try #require(body.withLock { $0 }, "the request did not finish")
    guard handlesCookies else {
      #expect(sent == "-", "cookies are off for this request, yet it sent \(sent)")
      return
    }
    let expected: Set<String> = change == .sameHostCookie ? ["theme=dark", "late=1"] : ["theme=dark"]
    #expect(Set(sent.components(separatedBy: "; ")) == expected)
  }

  /// Without a storage in use (`httpShouldSetCookies` off), a `Cookie` the app sets is its own
  /// and is sent as set.
  @Test func anAppsOwnCookieIsSentWhenNoStorageIsInUse() async throws {
    let server = try Server(setCookies: [])
    let configuration = try URLSessionConfiguration.cnPinned(
      manager: try server.manager(), configuration: try server.configuration(storage: CookieTests.storage()))
    configuration.httpShouldSetCookies = false
    var request = URLRequest(url: server.url("api.test", "/me"))
    request.setValue("app=1", forHTTPHeaderField: "Cookie")
    #expect(String(try await URLSession(configuration: configuration).data(for: request).0) == "app=1")
  }

  @Test(arguments: [
    ("https://api.example.com/", "a=1; Domain=example.com", ".example.com"),
    ("https://api.example.com/", "a=1", "api.example.com"),
    ("https://api.example.com/", "a=1; Domain=com", nil),
    ("https://api.example.co.uk/", "a=1; Domain=co.uk", nil),
    ("https://github.io/", "a=1; Domain=github.io", "github.io"),
    ("https://me.github.io/", "a=1; Domain=github.io", nil),
    ("https://api.example.com/", "a=1; Domain=other.com", nil),
    ("http://api.example.com/", "a=1; Secure", nil),
    ("https://api.example.com/", "a=1; Secure", "api.example.com"),
    ("https://api.example.com/", "__Secure-a=1", nil),
    ("https://api.example.com/", "__Secure-a=1; Secure; Domain=example.com", ".example.com"),
    ("https://api.example.com/", "__Host-a=1; Secure; Path=/", "api.example.com"),
    ("https://api.example.com/", "__Host-a=1; Path=/", nil),
    ("https://api.example.com/", "__Host-a=1; Secure; Path=/x", nil),
    ("https://api.example.com/", "__Host-a=1; Secure; Path=/; Domain=example.com", nil),
    ("https://127.0.0.1/", "a=1; Domain=127.0.0.1", "127.0.0.1"),
    ("https://api.example.com/", "a=" + String(repeating: "x", count: 5000), nil),
  ])
  func whichCookiesAreKept(_ url: String, _ line: String, _ domain: String?) throws {
    let url = try #require(URL(string: url))
    let offered = try #require(HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url).first)
    #expect(Cookies.accepted(offered, from: try RequestTarget(url))?.domain == domain)
  }

  /// Cookies are kept and found under the canonical host, however the URL spelled it: a cookie set
  /// through `https://API.Test./` (or the IPv4-mapped form of an address) is the same host's.
  @Test(arguments: [
    ("https://API.Test./login", "https://api.test/me"), ("https://api.test/login", "https://API.TEST./me"),
    ("https://[::ffff:127.0.0.1]/login", "https://127.0.0.1/me"),
  ])
  func cookiesBelongToTheCanonicalHost(_ setter: String, _ reader: String) throws {
    let storage = CookieTests.storage()
    let response = try #require(
      HTTPURLResponse(
        url: URL(string: setter)!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Set-Cookie": "a=1; Path=/"]))
    Cookies.store(
      from: TransferOutcome(response: response, body: Data()), at: try RequestTarget(URL(string: setter)!), in: storage)
    #expect(
      Cookies.header(for: SessionRequest(url: URL(string: reader)!), at: try RequestTarget(URL(string: reader)!), from: storage)
        == "a=1")
  }

  /// Stores what `url` sets with these `Set-Cookie` lines, as a response would.
  static func store(_ lines: [String], from url: String, in storage: HTTPCookieStorage) throws {
    let url = try #require(URL(string: url))
    let fields = Dictionary(uniqueKeysWithValues: [("Set-Cookie", lines.joined(separator: ", "))])
    let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
    Cookies.store(from: TransferOutcome(response: response, body: Data()), at: try RequestTarget(url), in: storage)
  }

  /// 60 host names under one registrable domain, 50 cookies each, cannot fill the jar: the cap
  /// is per registrable domain, and a full one gives up its oldest cookies, so a bank's session
  /// cookie that comes next is kept (the old caps, per exact domain with new cookies dropped
  /// once 3,000 were stored, kept 3,000 and dropped it).
  @Test func oneRegistrableDomainCannotCrowdOutAnother() throws {
    let storage = CookieTests.storage()
    for host in 0..<60 {
      try Self.store((0..<50).map { "h\(host)c\($0)=v; Path=/" }, from: "https://h\(host).tracker.test/", in: storage)
    }
    let kept = storage.cookies ?? []
    #expect(kept.count == Cookies.perSite, "\(kept.count) cookies kept for tracker.test")
    let older = kept.map(\.name).filter { !$0.hasPrefix("h59c") }
    #expect(older.isEmpty, "the newest are kept, the oldest evicted; still kept: \(older.prefix(5))…")
    try Self.store(["session=bank; Path=/; Secure"], from: "https://www.bank.test/", in: storage)
    #expect(storage.cookies(for: URL(string: "https://www.bank.test/")!)?.map(\.name) == ["session"])
  }

  /// The jar's total cap evicts from a site over its fair share (here every site holds 50 of a
  /// share of 49), the least recently used first, so a new site's cookie always finds room.
  @Test func aFullJarMakesRoomFromTheLargestSite() throws {
    let storage = CookieTests.storage()
    for site in 0..<(Cookies.total / Cookies.perSite) {
      try Self.store((0..<50).map { "s\(site)c\($0)=v; Path=/" }, from: "https://www.site\(site).test/", in: storage)
    }
    #expect(storage.cookies?.count == Cookies.total)
    try Self.store(["new=1; Path=/"], from: "https://www.newcomer.test/", in: storage)
    #expect(storage.cookies?.count == Cookies.total)
    #expect(storage.cookies(for: URL(string: "https://www.newcomer.test/")!)?.map(\.name) == ["new"])
    #expect(storage.cookies(for: URL(string: "https://www.site0.test/")!)?.count == 49, "site0's oldest made room")
  }

  /// Sends a request to `url` with `storage`, as a hop would: the site's cookies are used.
  static func send(to url: String, with storage: HTTPCookieStorage) throws -> String? {
    let url = try #require(URL(string: url))
    return Cookies.header(for: SessionRequest(url: url), at: try RequestTarget(url), from: storage)
  }

  /// Issue 56, item 4: a crowd of one-cookie sites (3,010, some under a private suffix, where a
  /// site costs nothing) fills the jar while a bank's site is in use. The crowd evicts its own
  /// least recently used members; the bank's three Secure cookies stay (the site that held the
  /// most lost them all before).
  /// Seconds of synchronous work per case (3,010 stores into a full jar): run off the shared
  /// threads, since on the cooperative pool's two threads here both cases held the whole pool
  /// for the time, and under load other suites' 60-s liveness bounds and servers' idle timeouts
  /// ran out meanwhile (found from the stacks of a stalled full-suite run).
  @Test(arguments: ["www.crowd%d.test", "s%d.github.io"])
  func aCrowdOfOneCookieSitesEvictsItsOwnBeforeARecentlyUsedSite(_ hostPattern: String) async throws {
    try await offTheSharedThreads { try Self.crowdOfOneCookieSites(hostPattern) }
  }

  static func crowdOfOneCookieSites(_ hostPattern: String) throws {
    let storage = CookieTests.storage()
    let crowd = { (site: Int) in "https://" + hostPattern.replacingOccurrences(of: "%d", with: "\(site)") + "/" }
    try Self.store(
      ["a=1; Path=/; Secure", "b=2; Path=/; Secure", "c=3; Path=/; Secure"], from: "https://www.bank.test/", in: storage)
    for site in 0..<3_010 {
      if site == 1_500 { #expect(try Self.send(to: "https://www.bank.test/", with: storage) != nil, "the bank is used") }
      try Self.store(["t=\(site); Path=/"], from: crowd(site), in: storage)
    }
    #expect(storage.cookies?.count == Cookies.total)
    #expect(storage.cookies(for: URL(string: "https://www.bank.test/")!)?.map(\.name).sorted() == ["a", "b", "c"])
    #expect(storage.cookies(for: URL(string: crowd(0))!)?.isEmpty ?? true, "the least recently used went")
    #expect(storage.cookies(for: URL(string: crowd(3_009))!)?.count == 1)
  }

  /// The same with 340 sites of nine cookies each against a bank's ten: within the fair share
  /// (`Cookies.fairShareFloor`), a recently used site loses none.
  @Test func sitesWithinTheirFairShareLoseCookiesLeastRecentlyUsedFirst() throws {
    let storage = CookieTests.storage()
    try Self.store((0..<10).map { "k\($0)=v; Path=/; Secure" }, from: "https://www.bank.test/", in: storage)
    for site in 0..<340 {
      if site == 170 { #expect(try Self.send(to: "https://www.bank.test/", with: storage) != nil) }
      try Self.store((0..<9).map { "c\($0)=\(site); Path=/" }, from: "https://www.site\(site).test/", in: storage)
    }
    #expect(storage.cookies?.count == Cookies.total)
    #expect(storage.cookies(for: URL(string: "https://www.bank.test/")!)?.count == 10)
    #expect(storage.cookies(for: URL(string: "https://www.site0.test/")!)?.isEmpty ?? true)
  }

  /// A site over its fair share gives cookies up first, even when it was used last.
  @Test func aSiteOverItsFairShareGivesUpCookiesFirst() throws {
    let storage = CookieTests.storage()
    for site in 0..<59 {
      try Self.store((0..<50).map { "s\(site)c\($0)=v; Path=/" }, from: "https://www.site\(site).test/", in: storage)
    }
    try Self.store((0..<50).map { "big\($0)=v; Path=/" }, from: "https://www.big.test/", in: storage)
    for site in 0..<200 {
      #expect(try Self.send(to: "https://www.big.test/", with: storage) != nil)  // the big site, always used last
      try Self.store(["t=1; Path=/"], from: "https://small\(site).test/", in: storage)
    }
    // 260 sites share 3,000 (11 each): the 50-cookie sites are over it and made the room.
    #expect(storage.cookies?.count == Cookies.total)
    #expect(storage.cookies(for: URL(string: "https://www.big.test/")!)?.count ?? 0 < 50)
    let smallKept = (0..<200).filter { storage.cookies(for: URL(string: "https://small\($0).test/")!)?.count == 1 }
    #expect(smallKept.count == 200)
  }

  /// A plain-http response does not push a Secure cookie out: it is dropped instead.
  @Test func plainHTTPNeverEvictsASecureCookie() throws {
    let storage = CookieTests.storage()
    try Self.store((0..<50).map { "s\($0)=v; Path=/; Secure" }, from: "https://www.shop.test/", in: storage)
    try Self.store(["plain=1; Path=/"], from: "http://www.shop.test/", in: storage)
    #expect((storage.cookies ?? []).filter { !$0.isSecure }.isEmpty)
    #expect(storage.cookies?.count == 50)
  }

  /// A storage someone else filled (FoundationNetworking's own protocol, the app) offers a
  /// cookie on `.test` for `api.test`; the session does not send it.
  @Test func aStoredPublicSuffixCookieIsNeverSent() throws {
    let storage = CookieTests.storage()
    let planted = try #require(
      HTTPCookie(properties: [.name: "sid", .value: "FIXED", .domain: ".test", .path: "/"]))
    storage.setCookie(planted)
    #expect(storage.cookies(for: URL(string: "https://api.test/")!)?.count == 1, "FoundationNetworking would send it")
    let url = URL(string: "https://api.test/")!
    #expect(Cookies.header(for: SessionRequest(url: url), at: try RequestTarget(url), from: storage) == nil)
  }
}

#endif

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningCurl
#endif

/// The public suffix list the cookie rules use, against the list's own published tests.
@Suite("Public suffix list")
struct PublicSuffixTests {
  @Test func theListsOwnTestsPass() {
    #expect(publicSuffixVectors.count > 70)
    for (domain, expected) in publicSuffixVectors {
      // The list's tests give names in any case and with a leading dot for "not a name".
      let registrable = PublicSuffixList.registrableDomain(of: domain.lowercased())
      #expect(registrable == expected?.lowercased(), "\(domain)")
    }
  }

  @Test(arguments: [
    ("com", true), ("co.uk", true), ("github.io", true), ("test", true), ("localhost", true), ("example.com", false),
    ("api.example.co.uk", false), ("foo.ck", true), ("www.ck", false), ("xn--p1ai", true),
  ])
  func publicSuffixes(_ domain: String, _ isSuffix: Bool) {
    #expect(PublicSuffixList.isPublicSuffix(domain) == isSuffix)
  }
}
