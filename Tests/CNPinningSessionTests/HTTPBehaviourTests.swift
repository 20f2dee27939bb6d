// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTP behaviour")
struct HTTPBehaviourTests {
  static func fixture(
    handler: @escaping @Sendable (LocalTLSServer.Request) -> LocalTLSServer.Response = { _ in .text("hello") },
    configure: (inout CNPinnedSessionConfiguration) -> Void = { _ in }
  ) throws -> (LocalTLSServer, CNPinnedSession) {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: handler))
    var configuration = resolving(to: server)
    configure(&configuration)
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    return (server, session)
  }

  @Test func methodsHeadersAndBodiesReachTheServer() async throws {
    let (server, session) = try Self.fixture { request in
      LocalTLSServer.Response(
        status: 201, headers: [.init("X-Echo-Method", request.method), .init("Set-Cookie", "a=1"), .init("Set-Cookie", "b=2")],
        body: request.body)
    } configure: {
      $0.httpAdditionalHeaders = ["X-Session": "s", "X-Override": "session"]
    }
    var request = URLRequest(url: server.url("/upload?x=1", hostName: "api.test"))
    request.httpMethod = "PUT"
    request.httpBody = Data("payload ü".utf8)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("request", forHTTPHeaderField: "X-Override")
    let (data, response) = try await session.data(for: request)
    #expect(response.statusCode == 201)
    #expect(String(data) == "payload ü")
    #expect(response.value(forHTTPHeaderField: "x-echo-method") == "PUT")
    #expect(response.value(forHTTPHeaderField: "Set-Cookie") == "a=1, b=2")
    let received = try #require(server.requests.first)
    #expect(received.method == "PUT")
    #expect(received.target == "/upload?x=1")
    #expect(received.header("Content-Type") == "application/json")
    #expect(received.header("X-Session") == "s")
    #expect(received.header("X-Override") == "request")
    #expect(received.header("Expect") == nil)
    #expect(received.serverName == "api.test")
  }

  @Test(arguments: ["GET", "HEAD", "POST", "DELETE", "PATCH", "OPTIONS"])
  func everyMethodIsSentAsIs(_ method: String) async throws {
    let (server, session) = try Self.fixture()
    var request = URLRequest(url: server.url("/m", hostName: "api.test"))
    request.httpMethod = method
    if method == "POST" || method == "PATCH" { request.httpBody = Data("b".utf8) }
    let (data, response) = try await session.data(for: request)
    #expect(response.statusCode == 200)
    #expect(server.requests.first?.method == method)
    #expect(String(data) == (method == "HEAD" ? "" : "hello"))
  }

  /// A caller's `Content-Length` that is not a plain decimal, that two fields state
  /// differently, or that contradicts the body (a GET without one, a body of another length) is
  /// refused with `invalidArgument` before anything is sent, through `data(for:)` as through
  /// `exchange(_:)`: sent as it was, it desynchronised a kept-alive connection.
  @Test(
    arguments: [
      (nil, ["+10"]), (nil, ["5"]), ("four", ["3"]), ("four", ["4", "5"]), ("four", [" 4"]), ("four", ["0x4"]),
    ] as [(String?, [String])])
  func aContentLengthThatIsNotTheBodysIsRefusedOnEveryPath(_ body: String?, _ stated: [String]) async throws {
    let (server, session) = try Self.fixture()
    var request = URLRequest(url: server.url("/", hostName: "api.test"))
    if let body {
      request.httpMethod = "POST"
      request.httpBody = Data(body.utf8)
    }
    for value in stated { request.addValue(value, forHTTPHeaderField: "Content-Length") }
    let failure = await error { _ = try await session.data(for: request) }
    #expect(failure?.code == .invalidArgument, "\(stated): \(String(describing: failure))")
    let exchange = CNHTTPRequest(
      method: body == nil ? "GET" : "POST", url: server.url("/", hostName: "api.test"),
      headerFields: stated.map { CNHTTPField(name: "Content-Length", value: $0) }, body: body.map { .init(Data($0.utf8)) })
    let exchanged = await error { _ = try await session.exchange(exchange) }
    #expect(exchanged?.code == .invalidArgument, "\(stated): \(String(describing: exchanged))")
    #expect(server.requests.isEmpty)
  }

  /// A negative stated length is refused before any byte is sent: -1 (what
  /// `URLResponse.expectedContentLength` holds when the length is not known) used to leave the
  /// sequence unread and send a complete, empty chunked body that the server answered 200.
  @Test func aNegativeLengthIsRefusedBeforeAnythingIsSent() async throws {
    let (server, session) = try Self.fixture()
    let asked = Locked(0)
    let chunks = AsyncStream<Data> { continuation in
      asked.withLock { $0 += 1 }
      continuation.yield(Data("body".utf8))
      continuation.finish()
    }
    for length in [-1, -5] {
      let request = CNHTTPRequest(method: "PUT", url: server.url("/", hostName: "api.test"), body: .init(chunks, length: length))
      let failure = await error { _ = try await session.exchange(request) }
      let reason = try #require(failure?.reason(ifCode: .invalidArgument), "\(String(describing: failure))")
      #expect(reason.contains("length is \(length)"), "\(reason)")
    }
    #expect(server.requests.isEmpty)
  }

  @Test func errorStatusesAreResponsesNotErrors() async throws {
    let (server, session) = try Self.fixture { _ in .text("missing", status: 404) }
    let (data, response) = try await session.data(from: server.url("/nope", hostName: "api.test"))
    #expect(response.statusCode == 404)
    #expect(String(data) == "missing")
  }

  @Test func redirectsAreFollowedWithURLSessionRules() async throws {
    let (server, session) = try Self.fixture { request in
      switch request.target {
      case "/start": return .redirect(to: "/middle", status: 303)
      case "/middle":
        return .redirect(to: "https://api.test:\(request.header("Host")!.split(separator: ":").last!)/end", status: 307)
      default: return .text("\(request.method) \(request.target) \(request.body.count)")
      }
    }
    var request = URLRequest(url: server.url("/start", hostName: "api.test"))
    request.httpMethod = "POST"
    request.httpBody = Data("form".utf8)
    request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
    let (data, response) = try await session.data(for: request)
    #expect(String(data) == "GET /end 0")
    #expect(response.url?.path == "/end")
    #expect(server.requests.map(\.method) == ["POST", "GET", "GET"])
    #expect(server.requests.last?.header("Authorization") == "Bearer secret")  // same origin throughout
  }

  /// Credentials go only to the original origin, whether the request or the configuration set
  /// them; once a redirect leaves the origin they stay behind for the rest of the chain.
  @Test func credentialsNeverFollowARedirectToAnotherOrigin() async throws {
    let (server, session) = try Self.fixture(
      handler: { request in
        let port = request.header("Host")!.split(separator: ":").last!
        switch request.target {
        case "/start": return .redirect(to: "https://localhost.test:\(port)/elsewhere")
        case "/elsewhere": return .redirect(to: "https://api.test:\(port)/back")
        default: return .text("done")
        }
      },
      configure: { configuration in
        configuration.resolve += configuration.resolve.map {
          CNHostOverride(host: "localhost.test", port: $0.port, address: $0.address)
        }
        configuration.httpAdditionalHeaders = [
          "Authorization": "Bearer app", "Cookie": "session=1", "X-Api-Key": "key", "X-Trace": "7",
        ]
        configuration.credentialHeaders = ["x-api-key"]
      })
    var request = URLRequest(url: server.url("/start", hostName: "api.test"))
    request.setValue("Bearer request", forHTTPHeaderField: "Proxy-Authorization")
    #expect(try await session.data(for: request).1.statusCode == 200)
    let hops = server.requests
    #expect(hops.map(\.target) == ["/start", "/elsewhere", "/back"])
    #expect(hops[0].header("Authorization") == "Bearer app" && hops[0].header("X-Api-Key") == "key")
    for hop in hops.dropFirst() {
      for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"] {
        #expect(hop.header(name) == nil, "\(name) reached \(hop.target)")
      }
      #expect(hop.header("X-Trace") == "7", "other headers still go everywhere")
    }
  }

  /// Shortened and numeric IPv4 forms fail closed, and the error says what is wrong with them
  /// (they were reported as an untrusted chain: "error signaled by ssl ctx callback").
  @Test(arguments: ["127.1", "2130706433", "0x7f.0.0.1", "127.0.0.01", "0x7f000001", "127.0.0.0x1"])
  func numericIPv4FormsAreRefusedBeforeConnecting(_ host: String) async throws {
    let session = try CNPinnedSession(manager: nil)
    let failure = await error { _ = try await session.data(from: URL(string: "https://\(host):1/")!) }
    let refused = try #require(failure?.details(.invalidHost), "expected invalidHost, got \(String(describing: failure))")
    #expect(refused.host == host)
    #expect(refused.reason.hasSuffix("write 127.0.0.1"), "\(refused.reason)")
  }

  @Test func redirectLoopsStop() async throws {
    let (server, session) = try Self.fixture(handler: { _ in .redirect(to: "/again") }, configure: { $0.maximumRedirects = 3 })
    #expect(await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) } == .tooManyRedirects(3))
    #expect(server.requests.count == 4)
  }

  @Test func redirectsCanBeLeftToTheCaller() async throws {
    let (server, session) = try Self.fixture(
      handler: { _ in .redirect(to: "/elsewhere") }, configure: { $0.followsRedirects = false })
    let (_, response) = try await session.data(from: server.url("/", hostName: "api.test"))
    #expect(response.statusCode == 302)
    #expect(response.value(forHTTPHeaderField: "Location") == "/elsewhere")
  }

  @Test func redirectToAnotherSchemeIsRefused() async throws {
    let (server, session) = try Self.fixture(handler: { _ in .redirect(to: "file:///etc/passwd") })
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) } == .invalidURL("file:///etc/passwd")
    )
  }

  @Test func downloadsGoToAFile() async throws {
    let body = Data((0..<300_000).map { UInt8($0 % 251) })
    let (server, session) = try Self.fixture { _ in LocalTLSServer.Response(body: body) }
    let (file, response) = try await session.download(from: server.url("/big", hostName: "api.test"))
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(response.statusCode == 200)
    #expect(try Data(contentsOf: file) == body)
    // Only this user may read the body, or enter the directory that holds it.
    let mode = { (path: String) in ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1 }
    #expect(mode(file.path) == 0o600)
    #expect(mode(file.deletingLastPathComponent().path) == 0o700)
  }

  /// 48 MiB of zeros, gzip-compressed to about 48 KiB by the system's gzip.
  static func gzipBomb() async throws -> Data {
    let run = try await TestProcess.run("/usr/bin/env", ["gzip", "-c", "-9"], input: Data(count: 48 << 20))
    #expect(run.status == 0)
    return run.stdout
  }

  /// A server that answers everything with the gzip bomb.
  static func bombServer(_ configure: (inout CNPinnedSessionConfiguration) -> Void = { _ in }) async throws -> (
    LocalTLSServer, CNPinnedSession
  ) {
    let bomb = try await gzipBomb()
    return try fixture(
      handler: { _ in LocalTLSServer.Response(headers: [.init("Content-Encoding", "gzip")], body: bomb) }, configure: configure)
  }

  @Test func bodiesAreLimitedOnTheirDecodedSize() async throws {
    #expect(try await Self.gzipBomb().count < 128 * 1024)
    let (server, session) = try await Self.bombServer { $0.maximumResponseBodySize = 1 << 20 }
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
        == .responseTooLarge(host: "api.test", limit: 1 << 20))
  }

  @Test func theDefaultLimitStopsADecompressionBombInMemory() async throws {
    // The default for data(for:) is 32 MiB; the bomb decodes to 48 MiB.
    let (server, session) = try await Self.bombServer()
    #expect(CNPinnedSessionConfiguration().maximumResponseBodySize == 32 << 20)
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
        == .responseTooLarge(host: "api.test", limit: 32 << 20))
  }

  @Test func downloadsHaveTheirOwnLimit() async throws {
    let (server, session) = try await Self.bombServer { $0.maximumDownloadSize = 4 << 20 }
    #expect(
      await error { _ = try await session.download(from: server.url("/", hostName: "api.test")) }
        == .responseTooLarge(host: "api.test", limit: 4 << 20))
    // Within the limit the same body downloads whole (downloads allow far more by default).
    let (unlimited, defaultSession) = try await Self.bombServer()
    let (file, _) = try await defaultSession.download(from: unlimited.url("/", hostName: "api.test"))
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) == 48 << 20)
  }

  @Test func responseHeadsAreLimited() async throws {
    let many = (0..<20_000).map { LocalTLSServer.Header("X-Repeated", "value \($0)") }
    let (server, session) = try Self.fixture { _ in LocalTLSServer.Response(headers: many, body: Data("ok".utf8)) }
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
    let refused = try #require(failure?.details(.invalidResponse), "expected invalidResponse, got \(String(describing: failure))")
    #expect(refused.host == "api.test")
    #expect(refused.reason.contains("256 KiB"), "\(refused.reason)")
  }

  @Test(.tags(.concurrency)) func fiftyConcurrentRequestsAllSucceed() async throws {
    let (server, session) = try Self.fixture { request in .text("reply to \(request.target)") }
    let replies = try await withThrowingTaskGroup(of: String.self) { group in
      for index in 0..<50 {
        group.addTask { String(try await session.data(from: server.url("/\(index)", hostName: "api.test")).0) }
      }
      return try await group.reduce(into: Set<String>()) { $0.insert($1) }
    }
    #expect(replies == Set((0..<50).map { "reply to /\($0)" }))
    #expect(server.requests.count == 50)
  }

  @Test(.tags(.concurrency)) func cancellingATaskEndsItsTransfer() async throws {
    // The server would answer after 120 s; ending well before that shows cancellation ended the
    // transfer (the bound is generous because the suite shares two cores). The request timeout
    // is longer than the server's delay, so that on a busy machine, where the cancel can come
    // late, only the cancel can end the request early.
    let (server, session) = try Self.fixture(
      handler: { _ in LocalTLSServer.Response(body: Data("late".utf8), delay: 120) },
      configure: { $0.timeoutIntervalForRequest = 300 })
    let task = Task { try await session.data(from: server.url("/slow", hostName: "api.test")) }
    #expect(await eventually(within: 60) { server.requests.count == 1 })
    let started = Date()
    task.cancel()
    do {
      _ = try await task.value
      Issue.record("a cancelled request returned")
    } catch {
      #expect(error as? CNPinnedSessionError == .cancelled)
    }
    #expect(Date().timeIntervalSince(started) < 60)
  }

  @Test func aSilentServerTimesOut() async throws {
    let (server, session) = try Self.fixture(
      handler: { _ in LocalTLSServer.Response(delay: 120) }, configure: { $0.timeoutIntervalForRequest = 1 })
    // Judged on the request's time on the network thread: the wall time also counts the wait for
    // this task to be resumed, which on a busy machine is no measure of the session's timeout.
    let networkTime = Locked<Double?>(nil)
    session.setNetworkTimeObserver { nanoseconds in networkTime.withLock { $0 = Double(nanoseconds) / 1e9 } }
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
        == .timedOut(host: "api.test", seconds: 1))
    let spent = try #require(networkTime.withLock { $0 })
    #expect(spent < 1 + 5, "\(spent) s on the network thread (the server would answer after 120 s)")
  }

  @Test func aClosedPortIsConnectionRefused() async throws {
    try await withRefusedPort { port in
      var configuration = CNPinnedSessionConfiguration()
      configuration.resolve = [CNHostOverride(host: "api.test", port: port, address: "127.0.0.1")]
      let session = try CNPinnedSession(manager: try matchingPins(), configuration: configuration)
      let url = URL(string: "https://api.test:\(port)/")!
      #expect(await error { _ = try await session.data(from: url) } == .connectionRefused(host: "api.test", port: port))
    }
  }

  @Test func malformedRequestsAreRefusedBeforeConnecting() async throws {
    let (server, session) = try Self.fixture()
    #expect(await error { _ = try await session.data(from: URL(string: "ftp://api.test/")!) } == .invalidURL("ftp://api.test/"))
    var request = URLRequest(url: server.url("/", hostName: "api.test"))
    request.setValue("v", forHTTPHeaderField: "Bad Name")
    #expect(
      await error { _ = try await session.data(for: request) }
        == .invalidArgument("the header \"Bad Name\" has an invalid name or value"))
    // Foundation drops such values from URLRequest itself; session-wide headers are checked here.
    var configuration = session.configuration
    configuration.httpAdditionalHeaders = ["X-Bad": "a\r\nInjected: yes"]
    let injecting = try CNPinnedSession(
      manager: session.manager, configuration: configuration.trusting(session.configuration.trust))
    #expect(
      await error { _ = try await injecting.data(from: server.url("/", hostName: "api.test")) }
        == .invalidArgument("the header \"X-Bad\" has an invalid name or value"))
    request = URLRequest(url: server.url("/", hostName: "api.test"))
    request.httpMethod = "GE T"
    #expect(await error { _ = try await session.data(for: request) } == .invalidArgument("\"GE T\" is not a valid HTTP method"))
    #expect(server.connections == 0)
  }

  @Test func invalidatedSessionsRefuseRequests() async throws {
    let (server, session) = try Self.fixture()
    session.invalidateAndCancel()
    #expect(await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) } == .sessionInvalidated)
  }

  @Test func hostOverridesParseLikeCurl() throws {
    #expect(try CNHostOverride("api.test:443:127.0.0.1") == CNHostOverride(host: "api.test", port: 443, address: "127.0.0.1"))
    #expect(try CNHostOverride("api.test:8443:[::1]") == CNHostOverride(host: "api.test", port: 8443, address: "::1"))
    #expect(throws: CNPinnedSessionError.self) { try CNHostOverride("api.test:443") }
    #expect(throws: CNPinnedSessionError.self) { try CNHostOverride("api.test:99999:127.0.0.1") }
  }
}
#endif
