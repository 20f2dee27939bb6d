// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import FoundationNetworking
import Testing

/// Plain URLSession calls, pinned by changing only how the configuration is made.
@Suite("URLSession through CNPinningURLProtocol", .tags(.concurrency))
struct URLProtocolTests {
  static func urlSession(_ manager: CNPinningManager, _ server: LocalTLSServer, trust: CNTrust) throws -> URLSession {
    URLSession(configuration: try .cnPinned(manager: manager, configuration: resolving(to: server).trusting(trust)))
  }

  /// A genuine server, a rogue one for the same name under another CA, and trust in both roots.
  static func genuineAndRogue() throws -> (LocalTLSServer, LocalTLSServer, CNTrust) {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Rogue Root CA", intermediate: "Rogue Issuing CA 1")
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let rogueServer = try LocalTLSServer.start(.init(identity: rogue.leaf))
    return (server, rogueServer, .customAnchors([pki.root.certificate, rogue.root.certificate]))
  }

  /// The URLError a URLSession call threw, or a recorded issue when it succeeded.
  static func urlError(of body: () async throws -> Void) async -> URLError? {
    await thrown(URLError.self, by: body)
  }

  @Test func genuineIsAcceptedAndRogueRefusedWithTheSessionErrorUnderneath() async throws {
    let (server, rogueServer, trust) = try Self.genuineAndRogue()

    let genuine = try Self.urlSession(try matchingPins(), server, trust: trust)
    let (data, response) = try await genuine.data(from: server.url("/items", hostName: "api.test"))
    #expect(String(data) == "hello")
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(server.requests.map(\.target) == ["/items"])

    let attacked = try Self.urlSession(try matchingPins(), rogueServer, trust: trust)
    let failure = await Self.urlError { _ = try await attacked.data(from: rogueServer.url("/", hostName: "api.test")) }
    #expect(failure?.code == .serverCertificateUntrusted)
    let underlying = try #require(failure?.userInfo[NSUnderlyingErrorKey] as? CNPinnedSessionError)
    let details = try #require(underlying.pinFailure, "expected a pin mismatch, got \(underlying)")
    #expect(details.presentedCommonNames == ["Rogue Root CA", "Rogue Issuing CA 1", "api.test"])
    #expect(rogueServer.requests.isEmpty)
  }

  /// A leaf without a subject (Let's Encrypt's tlsserver profile) pinned by its subjectAltName
  /// under a chain whose Generation Y root may be the anchor, through plain URLSession code; a
  /// leaf of the same CA for another name is refused before the request is sent.
  @Test func aCNLessLeafIsPinnedByItsNameThroughURLSession() async throws {
    let pki = try LetsEncryptPKI()
    let (identity, sent) = try pki.server("api.test", .generationYRSA, profile: .tlsServer)
    var setup = LocalTLSServer.Configuration(identity: identity)
    setup.chain = sent
    let server = try LocalTLSServer.start(setup)
    let pins = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([
        CNChain([
          CNChainLink(.prefixWithNumber, "ISRG Root X"), CNChainLink(.exact, "Root YR", mayBeAnchor: true),
          CNChainLink(.prefixWithNumber, "YR"), CNChainLink(.subjectAltName, "api.test"),
        ])
      ])
    ])
    for store in [LetsEncryptPKI.Store.generationX, .generationY] {
      let session = try Self.urlSession(pins, server, trust: .customAnchors(pki.anchors(store)))
      #expect(String(try await session.data(from: server.url("/", hostName: "api.test")).0) == "hello", "\(store)")
    }
    let (other, _) = try pki.server("other.test", .generationYRSA, profile: .tlsServer)
    var otherSetup = LocalTLSServer.Configuration(identity: other)
    otherSetup.chain = sent
    let otherServer = try LocalTLSServer.start(otherSetup)
    let strict = try CNPinningManager(configuration: [
      "other.test": CNConfiguration([
        CNChain([
          CNChainLink(.prefixWithNumber, "ISRG Root X"), CNChainLink(.exact, "Root YR", mayBeAnchor: true),
          CNChainLink(.prefixWithNumber, "YR"), CNChainLink(.subjectAltName, "api.test"),
        ])
      ])
    ])
    let session = URLSession(
      configuration: try .cnPinned(
        manager: strict,
        configuration: resolving(["other.test"], to: otherServer).trusting(.customAnchors(pki.anchors(.generationX)))))
    let failure = await Self.urlError { _ = try await session.data(from: otherServer.url("/", hostName: "other.test")) }
    #expect(failure?.code == .serverCertificateUntrusted)
    #expect(otherServer.requests.isEmpty)
  }

  /// The one line shared iOS/Linux code calls (issue 28, item 3) pins here as `.cnPinned` does.
  @Test func theCrossPlatformOneLinerPins() async throws {
    let (server, rogueServer, trust) = try Self.genuineAndRogue()
    let genuine = try URLSession.cnPinned(manager: try matchingPins(), configuration: resolving(to: server).trusting(trust))
    #expect(String(try await genuine.data(from: server.url("/", hostName: "api.test")).0) == "hello")
    let attacked = try URLSession.cnPinned(
      manager: try matchingPins(), configuration: resolving(to: rogueServer).trusting(trust))
    let failure = await Self.urlError { _ = try await attacked.data(from: rogueServer.url("/", hostName: "api.test")) }
    #expect(failure?.code == .serverCertificateUntrusted)
    #expect(rogueServer.requests.isEmpty)
  }

  @Test func twoConfigurationsKeepTheirOwnPinsInOneProcess() async throws {
    let first = try TestPKI()
    let second = try TestPKI(root: "Second Root X1", intermediate: "S1")
    let firstServer = try LocalTLSServer.start(.init(identity: first.leaf, handler: { _ in .text("first") }))
    let secondServer = try LocalTLSServer.start(.init(identity: second.leaf, handler: { _ in .text("second") }))
    let trust = CNTrust.customAnchors([first.root.certificate, second.root.certificate])
    let firstPins = try matchingPins()
    let secondPins = try pins("api.test", [(.exact, "Second Root X1"), (.exact, "S1"), (.exact, "api.test")])

    // Each session is made for one server; each is asked for both.
    let pinnedToFirst = try Self.urlSession(firstPins, firstServer, trust: trust)
    let pinnedToSecond = try Self.urlSession(secondPins, secondServer, trust: trust)
    let crossedToSecond = try Self.urlSession(firstPins, secondServer, trust: trust)
    let crossedToFirst = try Self.urlSession(secondPins, firstServer, trust: trust)
    #expect(String(try await pinnedToFirst.data(from: firstServer.url("/", hostName: "api.test")).0) == "first")
    #expect(String(try await pinnedToSecond.data(from: secondServer.url("/", hostName: "api.test")).0) == "second")
    let crossed = await Self.urlError { _ = try await crossedToSecond.data(from: secondServer.url("/", hostName: "api.test")) }
    #expect(crossed?.code == .serverCertificateUntrusted)
    let crossedBack = await Self.urlError { _ = try await crossedToFirst.data(from: firstServer.url("/", hostName: "api.test")) }
    #expect(crossedBack?.code == .serverCertificateUntrusted)
  }

  @Test func completionHandlerTasksArePinnedToo() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try Self.urlSession(try matchingPins(), server, trust: .customAnchors([pki.root.certificate]))
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
      session.dataTask(with: server.url("/", hostName: "api.test")) { _, response, _ in
        continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
      }.resume()
    }
    #expect(status == 200)
  }

  /// Cancelled at once (before URLSession has started the protocol), a little later, or once the
  /// request is at the server: the task fails with `.cancelled` (had it not been cancelled, the
  /// server's answer would have arrived after 30 s). No wall-clock bound: in the full suite the
  /// CPU-bound tests of other modules hold the cooperative threads for tens of seconds, and a
  /// bound measured that wait (it failed at 25–35 s while the test alone took 0.3 s).
  @Test(arguments: [0, 2, 300])
  func cancellingTheTaskStopsTheTransfer(afterMilliseconds delay: Int) async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { _ in .init(body: Data("late".utf8), delay: 30) }))
    let session = try Self.urlSession(try matchingPins(), server, trust: .customAnchors([pki.root.certificate]))
    let request = Task { try await session.data(from: server.url("/", hostName: "api.test")) }
    if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
    request.cancel()
    let failure = await Self.urlError { _ = try await request.value }
    #expect(failure?.code == .cancelled)
  }
}

extension URLProtocolTests {
  /// Plain URLSession calls against Debian's nginx (HTTP/2, keep-alive): eight tasks share the
  /// pinned session's connection; a server with another CA's chain is refused.
  @Test func urlSessionCallsArePinnedAgainstNginx() async throws {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Rogue Root CA", intermediate: "Rogue Issuing CA 1")
    let server = try NginxServer.start(try NginxServer.Configuration(identity: pki.leaf))
    let rogueServer = try NginxServer.start(try NginxServer.Configuration(identity: rogue.leaf))
    func session(for server: NginxServer) throws -> URLSession {
      var configuration = CNPinnedSessionConfiguration()
      configuration.resolve = [CNHostOverride(host: "api.test", port: server.port, address: "127.0.0.1")]
      configuration.timeoutIntervalForRequest = 10
      configuration.trust = .customAnchors([pki.root.certificate, rogue.root.certificate])
      return URLSession(configuration: try .cnPinned(manager: try matchingPins(), configuration: configuration))
    }
    let genuine = try session(for: server)
    let url = server.url("/", hostName: "api.test")
    let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
      for _ in 0..<8 {
        group.addTask {
          var statuses: [Int] = []
          for _ in 0..<25 { statuses.append((try await genuine.data(from: url).1 as? HTTPURLResponse)?.statusCode ?? 0) }
          return statuses
        }
      }
      return try await group.reduce(into: []) { $0 += $1 }
    }
    #expect(statuses.count == 200 && Set(statuses) == [200])
    let attacked = try session(for: rogueServer)
    let failure = await Self.urlError { _ = try await attacked.data(from: rogueServer.url("/", hostName: "api.test")) }
    #expect(failure?.code == .serverCertificateUntrusted)
  }

  /// Uploads keep their body outside the request; a protocol that sent the request alone posted
  /// nothing (this failed with "got 0 bytes" before the body was read from the task).
  @Test func uploadsSendTheirBody() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf, handler: { request in .text("\(request.method) \(request.body.count) \(request.body.first ?? 0)") }))
    let session = try Self.urlSession(try matchingPins(), server, trust: .customAnchors([pki.root.certificate]))
    var request = URLRequest(url: server.url("/upload", hostName: "api.test"))
    request.httpMethod = "POST"
    #expect(String(try await session.upload(for: request, from: Data(repeating: 7, count: 1000)).0) == "POST 1000 7")

    let file = FileManager.default.temporaryDirectory.appendingPathComponent("cnpinning-upload-\(UUID().uuidString)")
    try Data(repeating: 9, count: 70_000).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(String(try await session.upload(for: request, fromFile: file).0) == "POST 70000 9")
  }

  /// FoundationNetworking finishes download tasks only for its own protocols (a custom one that
  /// reported success stopped the process): they are refused, saying why.
  @Test func downloadTasksAreRefusedNotCrashed() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try Self.urlSession(try matchingPins(), server, trust: .customAnchors([pki.root.certificate]))
    let failure = await Self.urlError {
      _ = try await session.download(for: URLRequest(url: server.url("/", hostName: "api.test")))
    }
    #expect(failure?.code == .unsupportedURL)
    #expect(server.requests.isEmpty)
  }

  /// Redirects are followed inside the pinned session (FoundationNetworking cannot take one from a
  /// protocol), each hop judged by its own host's pins: the task ends at the final URL, or fails
  /// as untrusted when a hop leads to a server with another CA's chain.
  @Test func redirectsAreFollowedWithEachHopPinned() async throws {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Rogue Root CA", intermediate: "Rogue Issuing CA 1", dnsNames: ["api.test", "evil.test"])
    let rogueServer = try LocalTLSServer.start(.init(identity: rogue.leaf, handler: { _ in .text("stolen") }))
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { request in
          switch request.target {
          case "/moved": return .redirect(to: "/final")
          case "/to-rogue": return .redirect(to: "https://api.test:\(rogueServer.port)/")
          default: return .text("final")
          }
        }))
    var configuration = resolving(to: server).trusting(.customAnchors([pki.root.certificate, rogue.root.certificate]))
    configuration.resolve.append(CNHostOverride(host: "api.test", port: rogueServer.port, address: "127.0.0.1"))
    let session = URLSession(configuration: try .cnPinned(manager: try matchingPins(), configuration: configuration))
    let (data, response) = try await session.data(from: server.url("/moved", hostName: "api.test"))
    #expect(String(data) == "final")
    #expect(response.url?.path == "/final")
    let failure = await Self.urlError { _ = try await session.data(from: server.url("/to-rogue", hostName: "api.test")) }
    #expect(failure?.code == .serverCertificateUntrusted)
    #expect(rogueServer.requests.isEmpty)
  }

  /// The URLSession configuration's headers and cookie storage are used, hop by hop; its
  /// credentials stay with the original origin.
  @Test func theConfigurationsHeadersAndCookiesAreUsed() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { request in
          let port = request.header("Host")!.split(separator: ":").last!
          switch request.target {
          case "/login": return .init(headers: [.init("Set-Cookie", "sid=abc; Path=/; Secure")])
          case "/away": return .redirect(to: "https://localhost.test:\(port)/echo")
          default:
            return .text(
              ["Cookie", "Authorization", "X-Client"].map { "\($0)=\(request.header($0) ?? "-")" }.joined(separator: " "))
          }
        }))
    let configuration = try URLSessionConfiguration.cnPinned(
      manager: try matchingPins(),
      configuration: resolving(["api.test", "localhost.test"], to: server).trusting(.customAnchors([pki.root.certificate])))
    configuration.httpAdditionalHeaders = ["Authorization": "Bearer app", "X-Client": "7"]
    let session = URLSession(configuration: configuration)
    _ = try await session.data(from: server.url("/login", hostName: "api.test"))
    let (echo, _) = try await session.data(from: server.url("/echo", hostName: "api.test"))
    #expect(String(echo) == "Cookie=sid=abc Authorization=Bearer app X-Client=7")
    let (away, _) = try await session.data(from: server.url("/away", hostName: "api.test"))
    #expect(String(away) == "Cookie=- Authorization=- X-Client=7")
  }

  /// A task whose data goes to a delegate gets the body as it arrives, in pieces.
  @Test func aDataDelegateGetsTheBodyAsItArrives() async throws {
    let pki = try TestPKI()
    let expected = StreamingTests.body(4 << 20)
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { _ in .init(body: expected) }))
    var configuration = resolving(to: server).trusting(.customAnchors([pki.root.certificate]))
    configuration.timeoutIntervalForRequest = 10
    let collector = BodyCollector()
    let session = URLSession(
      configuration: try .cnPinned(manager: try matchingPins(), configuration: configuration), delegate: collector,
      delegateQueue: nil)
    let error = await collector.run(session.dataTask(with: server.url("/", hostName: "api.test")))
    #expect(error == nil)
    let pieces = collector.pieces
    #expect(pieces.count > 1, "the body came in \(pieces.count) piece(s)")
    #expect(identical(pieces.reduce(into: Data()) { $0.append($1) }, expected))
  }

  /// FoundationNetworking keeps only the last piece for completion-handler (and `data(for:)`)
  /// tasks: they get the body whole.
  @Test func dataForGetsALargeBodyWhole() async throws {
    let pki = try TestPKI()
    let expected = StreamingTests.body(4 << 20)
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { _ in .init(body: expected) }))
    let session = try Self.urlSession(try matchingPins(), server, trust: .customAnchors([pki.root.certificate]))
    let (data, _) = try await session.data(from: server.url("/", hostName: "api.test"))
    #expect(data.count == expected.count)
    #expect(identical(data, expected))
  }

  /// A request's `httpBodyStream` is read as it is sent.
  @Test func anHTTPBodyStreamIsSent() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { .text("\($0.body.count)") }))
    let session = try Self.urlSession(try matchingPins(), server, trust: .customAnchors([pki.root.certificate]))
    let expected = StreamingTests.body(2 << 20)
    var request = URLRequest(url: server.url("/upload", hostName: "api.test"))
    request.httpMethod = "POST"
    request.httpBodyStream = InputStream(data: expected)
    let (data, _) = try await session.data(for: request)
    #expect(String(data) == "\(expected.count)")
    #expect(identical(server.requests.last?.body, expected))
  }
}

/// A URLSession data delegate that keeps each piece of body it is given.
// Unchecked Sendable: its state is behind a lock.
final class BodyCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let state = Locked<(pieces: [Data], done: CheckedContinuation<Error?, Never>?)>(([], nil))

  var pieces: [Data] { state.withLock { $0.pieces } }

  /// Runs `task` and returns how it ended.
  func run(_ task: URLSessionDataTask) async -> Error? {
    await withCheckedContinuation { continuation in
      state.withLock { $0.done = continuation }
      task.resume()
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    state.withLock { $0.pieces.append(data) }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    let done = state.withLock { state in
      defer { state.done = nil }
      return state.done
    }
    done?.resume(returning: error)
  }
}
/// Nothing goes around the pins: a scheme the pinned protocol declined would go to
/// FoundationNetworking's own protocols (ftp in clear, its WebSocket with the system's trust).
@Suite("URLSession schemes through CNPinningURLProtocol")
struct URLProtocolSchemeTests {
  static func pinnedProtocol() throws -> URLProtocol.Type {
    let configuration = try URLSessionConfiguration.cnPinned(manager: try matchingPins())
    return try #require(configuration.protocolClasses?.first as? URLProtocol.Type)
  }

  @Test(arguments: [
    "https://api.test/", "http://api.test/", "HTTPS://api.test/", "ftp://api.test/", "ws://api.test/", "wss://api.test/",
    "data:text/plain,hello", "file:///etc/passwd", "gopher://api.test/", "mailto:someone@api.test",
  ])
  func thePinnedProtocolClaimsEveryScheme(_ url: String) throws {
    #expect(try Self.pinnedProtocol().canInit(with: URLRequest(url: try #require(URL(string: url)))))
  }

  /// With `unpinnedHosts: .deny`, an ftp URL with credentials once connected in clear and sent the
  /// password; now it fails naming the scheme, and the server sees no connection.
  @Test(arguments: ["ftp", "gopher", "ws", "wss", "data", "file"])
  func otherSchemesFailNamingTheSchemeWithoutConnecting(_ scheme: String) async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    var configuration = CNPinnedSessionConfiguration()
    configuration.unpinnedHosts = .deny
    let session = URLSession(configuration: try .cnPinned(manager: try matchingPins("127.0.0.1"), configuration: configuration))
    let url =
      switch scheme {
      case "data": URL(string: "data:text/plain,hello")!
      case "file": URL(string: "file:///etc/hostname")!
      default: URL(string: "\(scheme)://user:secret@127.0.0.1:\(server.port)/")!
      }
    let failure = await URLProtocolTests.urlError { _ = try await session.data(from: url) }
    #expect(failure?.code == .unsupportedURL)
    #expect(failure?.localizedDescription.contains("\"\(scheme):\" URLs are refused") == true, "\(String(describing: failure))")
    #expect(server.connections == 0)
  }

  /// A WebSocket task on a pinned configuration never connects: this toolchain's libcurl has no
  /// WebSocket support (the task fails before choosing a protocol); with one that has, the task's
  /// protocol would be the pinned one, which refuses ws and wss.
  @Test func webSocketTasksNeverConnect() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = URLSession(configuration: try .cnPinned(manager: try matchingPins("127.0.0.1")))
    for scheme in ["ws", "wss"] {
      let task = session.webSocketTask(with: URL(string: "\(scheme)://127.0.0.1:\(server.port)/")!)
      task.resume()
      await #expect(throws: (any Error).self) { _ = try await task.receive() }
      task.cancel()
    }
    #expect(server.connections == 0)
  }
}
#endif
