// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if os(Linux) && !CNPINNING_APPLE_CHECK
import CNPinning
import CNPinningSession
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
#endif
