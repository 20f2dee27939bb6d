// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// `CNPinnedSession.exchange(_:)`: a request whose body is a sequence of chunks, a response whose
/// body is read as it arrives, with the pins, redirects, credentials and events of `data(for:)`.
@Suite("Streaming exchange", .tags(.concurrency))
struct ExchangeTests {
  /// A sequence of `count` chunks of `size` bytes that counts how often it was asked for one,
  /// and can throw after `failAfter` chunks.
  struct CountedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let count: Int
    let size: Int
    var failAfter: Int?
    let pulls = Locked(0)

    struct ProducerBrokeDown: Error, CustomStringConvertible {
      var description: String { "the producer broke down" }
    }

    func makeAsyncIterator() -> Iterator { Iterator(chunks: self) }

    struct Iterator: AsyncIteratorProtocol {
      let chunks: CountedChunks
      var index = 0
      mutating func next() async throws -> Data? {
        chunks.pulls.withLock { $0 += 1 }
        if let failAfter = chunks.failAfter, index == failAfter { throw ProducerBrokeDown() }
        guard index < chunks.count else { return nil }
        defer { index += 1 }
        return StreamingTests.body(chunks.size, seed: UInt64(index + 1))
      }
    }

    /// Every chunk, joined: what the server must receive.
    var joined: Data { (0..<count).reduce(into: Data()) { $0 += StreamingTests.body(size, seed: UInt64($1 + 1)) } }
  }

  static func post(_ server: LocalTLSServer, _ path: String, body: CNHTTPRequest.Body?, fields: [CNHTTPField] = [])
    -> CNHTTPRequest
  {
    CNHTTPRequest(method: "POST", url: server.url(path, hostName: "api.test"), headerFields: fields, body: body)
  }

  static func readAll(_ response: CNHTTPResponse) async throws -> Data {
    var received = Data()
    for try await chunk in response.body.chunks { received.append(chunk) }
    return received
  }

  @Test func aSequenceIsSentAsItIsReadWithItsLengthOrChunked() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { .text("\($0.body.count)") }))
    let session = try StreamingTests.session(for: server, pki: pki)
    let chunks = CountedChunks(count: 40, size: 10_000)
    let sized = try await session.exchange(Self.post(server, "/sized", body: .init(chunks, length: 400_000)))
    #expect(String(try await Self.readAll(sized)) == "400000")
    let unsized = try await session.exchange(Self.post(server, "/unsized", body: .init(CountedChunks(count: 40, size: 10_000))))
    #expect(String(try await Self.readAll(unsized)) == "400000")
    let requests = server.requests
    #expect(requests.count == 2)
    #expect(requests[0].header("Content-Length") == "400000")
    #expect(requests[1].header("Transfer-Encoding") == "chunked")
    #expect(requests.allSatisfy { identical($0.body, chunks.joined) })
  }

  @Test func anEndlessSequenceIsAskedForItsLengthAndOneChunkMoreThenRefused() async throws {
    // An endless producer with a stated length: read eagerly it would never end. It is asked
    // for the stated bytes and one chunk more, which shows it goes on past the length, and the
    // request fails naming it before the last chunk is sent. (That the network, not the reader,
    // sets the pace is shown by a 1 GiB upload in flat memory in `make bench-peers`.)
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { .text("\($0.body.count)") }))
    let session = try StreamingTests.session(for: server, pki: pki)
    let endless = CountedChunks(count: .max, size: 16_384)
    let failure = await error {
      _ = try await session.exchange(Self.post(server, "/", body: .init(endless, length: 64 * 16_384)))
    }
    let reason = try #require(failure?.reason(ifCode: .invalidArgument), "got \(String(describing: failure))")
    #expect(reason.contains("goes on past"))
    let pulls = endless.pulls.withLock { $0 }
    #expect(pulls == 65, "asked \(pulls) times for 64 chunks and the end")
    #expect(server.requests.isEmpty, "an endless body reached the server as a whole request")
  }

  @Test func eachPieceOfTheResponseReachesTheReaderAsItArrives() async throws {
    // The server sends each of six pieces only once the reader has had the ones before (or
    // after 120 s, recorded as a piece held back, after which it waits no more): a body handed on
    // in lumps, or whole, would hold the reader back and the server with it. The waits (and the
    // session's timeout) are long because the full suite on two cores, hundreds of tests making
    // keys at once, can keep the reading task from running for tens of seconds.
    let pki = try TestPKI()
    let body = StreamingTests.body(60)
    let gates = (0..<6).map { _ in DispatchSemaphore(value: 0) }
    let heldBack = Locked<[Int]>([])
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { _ in
          .init(
            body: body,
            pacing: (
              pieceSize: 10,
              beforePiece: { index in
                guard heldBack.withLock({ $0.isEmpty }) else { return }
                if gates[index].wait(timeout: .now() + 120) == .timedOut { heldBack.withLock { $0.append(index) } }
              }
            ))
        }))
    let session = try CNPinnedSession(
      manager: try matchingPins(),
      configuration: resolving(to: server, timeout: 150).trusting(.customAnchors([pki.root.certificate])))
    let response = try await session.exchange(CNHTTPRequest(url: server.url("/", hostName: "api.test")))
    var received = Data()
    var opened = 0
    for try await chunk in response.body.chunks {
      received.append(chunk)
      while opened < 5, received.count >= (opened + 1) * 10 {
        opened += 1
        gates[opened].signal()
      }
    }
    #expect(identical(received, body))
    #expect(
      heldBack.withLock { $0 }.isEmpty, "pieces \(heldBack.withLock { $0 }) did not reach the reader before the next was due")
  }

  /// A response makes its fields from the head when they are first read (issue 68): read only
  /// after the body was read and the session ended, and by eight tasks at once, they are the
  /// head's, in order, the same for every reader.
  @Test func fieldsReadLateAndAtOnceAreTheHeads() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { _ in
          .init(status: 200, headers: [.init("X-One", "1"), .init("Link", "<a>"), .init("Link", "<b>")], body: Data("made".utf8))
        }))
    let session = try StreamingTests.session(for: server, pki: pki)
    let response = try await session.exchange(CNHTTPRequest(url: server.url("/", hostName: "api.test")))
    #expect(String(try await Self.readAll(response)) == "made")
    session.invalidateAndCancel()
    let seen = await withTaskGroup(of: [CNHTTPField].self) { group in
      for _ in 0..<8 { group.addTask { response.headerFields } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(seen.count == 8 && Set(seen).count == 1)
    #expect(
      Array(seen[0].prefix(3)) == [
        .init(name: "X-One", value: "1"), .init(name: "Link", value: "<a>"), .init(name: "Link", value: "<b>"),
      ])
    #expect(response.value(forHeaderField: "link") == "<a>" && response.expectedContentLength == 4)
  }

  @Test func theResponseKeepsItsFieldsInOrderWithTheirRepeats() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { _ in
          .init(
            status: 201,
            headers: [.init("X-Zeta", "1"), .init("Link", "<a>"), .init("X-Alpha", "2"), .init("Link", "<b>")],
            body: Data("made".utf8))
        }))
    let session = try StreamingTests.session(for: server, pki: pki)
    let request = CNHTTPRequest(
      method: "PUT", url: server.url("/item", hostName: "api.test"),
      headerFields: [.init(name: "X-Tag", value: "a"), .init(name: "x-tag", value: "b"), .init(name: "Accept", value: "*/*")],
      body: .init(Data("payload".utf8)))
    let response = try await session.exchange(request)
    #expect(response.statusCode == 201)
    #expect(response.url.path == "/item")
    let names = response.headerFields.map(\.name)
    #expect(Array(names.prefix(4)) == ["X-Zeta", "Link", "X-Alpha", "Link"])
    #expect(response.headerFields.filter { $0.name == "Link" }.map(\.value) == ["<a>", "<b>"])
    #expect(response.value(forHeaderField: "link") == "<a>")
    // Field names compare in ASCII case only (FieldName): a Kelvin sign is not a K (Unicode
    // case folding, the second rule there was, took "LIN\u{212A}" for Link).
    #expect(response.value(forHeaderField: "LINK") == "<a>")
    #expect(response.value(forHeaderField: "LIN\u{212A}") == nil)
    #expect(String(try await Self.readAll(response)) == "made")
    let sent = try #require(server.requests.last)
    #expect(sent.method == "PUT" && String(sent.body) == "payload")
    // Sent as written: in order, each repeat a field of its own (they used to go out sorted by
    // name, a repeated name's values joined into one field).
    let written = sent.headers.filter { ["x-tag", "accept"].contains($0.name.lowercased()) }
    #expect(written.map(\.name) == ["X-Tag", "x-tag", "Accept"])
    #expect(written.map(\.value) == ["a", "b", "*/*"])
  }

  /// Every path whose input carries an order sends the fields in it, repeats kept, whatever the
  /// names: before, libcurl got them sorted by name with a repeated name's first value dropped.
  @Test func fieldsGoOutInTheOrderWrittenWithTheirRepeats() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try StreamingTests.session(for: server, pki: pki)
    let written: [CNHTTPField] = [
      .init(name: "Zeta", value: "1"), .init(name: "Alpha", value: "2"), .init(name: "X-A", value: "1"),
      .init(name: "X-A", value: "2"),
    ]
    _ = try await session.exchange(CNHTTPRequest(url: server.url("/", hostName: "api.test"), headerFields: written))
    let sent = try #require(server.requests.last).headers.filter { ["zeta", "alpha", "x-a"].contains($0.name.lowercased()) }
    #expect(sent.map { "\($0.name): \($0.value)" } == ["Zeta: 1", "Alpha: 2", "X-A: 1", "X-A: 2"])
  }

  @Test func aRogueServerIsRefusedBeforeTheBodyIsAskedFor() async throws {
    let (server, session) = try rogueServerAndPinnedSession()
    let chunks = CountedChunks(count: 10, size: 1_000)
    let failure = await error { _ = try await session.exchange(Self.post(server, "/", body: .init(chunks))) }
    #expect(failure?.pinFailure != nil, "expected a pin mismatch, got \(String(describing: failure))")
    #expect(server.requests.isEmpty)
    #expect(chunks.pulls.withLock { $0 } == 0, "the body was asked for before the verdict")
  }

  @Test func aSequenceCannotFollowA307AndCredentialsStayWithTheirOrigin() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { request in
          let port = request.header("Host")!.split(separator: ":").last!
          switch request.target {
          case "/keep": return .redirect(to: "/kept", status: 307)
          case "/leave": return .redirect(to: "https://localhost.test:\(port)/elsewhere", status: 303)
          default: return .text(request.method)
          }
        }))
    var configuration = resolving(["api.test", "localhost.test"], to: server)
    configuration = configuration.trusting(.customAnchors([pki.root.certificate]))
    let session = try CNPinnedSession(manager: try matchingPins(), configuration: configuration)
    let kept = await error {
      _ = try await session.exchange(Self.post(server, "/keep", body: .init(CountedChunks(count: 3, size: 100))))
    }
    let reason = try #require(kept?.reason(ifCode: .unsupportedRequest), "got \(String(describing: kept))")
    #expect(reason.contains("307"))

    let fields = [CNHTTPField(name: "Authorization", value: "Bearer secret")]
    let left = try await session.exchange(
      Self.post(server, "/leave", body: .init(CountedChunks(count: 3, size: 100)), fields: fields))
    #expect(String(try await Self.readAll(left)) == "GET")
    #expect(left.url.host == "localhost.test")
    let hops = server.requests.filter { $0.target == "/leave" || $0.target == "/elsewhere" }
    #expect(hops.map(\.target) == ["/leave", "/elsewhere"])
    #expect(hops.first?.header("Authorization") == "Bearer secret")
    #expect(hops.last?.header("Authorization") == nil, "the credential followed the redirect to another origin")
  }

  @Test func aSequenceThatFailsCutsTheRequestOffAndSaysWhy() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { .text("\($0.body.count)") }))
    let session = try StreamingTests.session(for: server, pki: pki)
    var broken = CountedChunks(count: 10, size: 10_000)
    broken.failAfter = 4
    for length in [nil, 100_000] as [Int?] {
      let failure = await error { _ = try await session.exchange(Self.post(server, "/", body: .init(broken, length: length))) }
      let reason = try #require(failure?.reason(ifCode: .transferFailed), "got \(String(describing: failure))")
      #expect(reason.contains("the producer broke down"))
    }
    #expect(server.requests.isEmpty, "a cut-off body reached the server as a whole request")
    // The session goes on.
    let next = try await session.exchange(Self.post(server, "/", body: .init(Data("ok".utf8))))
    #expect(String(try await Self.readAll(next)) == "2")
  }

  /// Before, a sequence short of its length failed only when the timeout ran out (with none it
  /// would wait for ever), and one that went on past it was cut at the length and sent as whole.
  @Test func aSequenceThatDisagreesWithItsLengthFailsAtOnceNamingIt() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { .text("\($0.body.count)") }))
    let session = try StreamingTests.session(for: server, pki: pki)
    for (count, length, words) in [(3, 1000, "ended after 300 bytes"), (20, 1000, "goes on past"), (1, 0, "goes on past")] {
      var request = Self.post(server, "/", body: .init(CountedChunks(count: count, size: 100), length: length))
      request.timeoutInterval = 30
      let failure = await error { _ = try await session.exchange(request) }
      let reason = try #require(failure?.reason(ifCode: .invalidArgument), "\(count) chunks: got \(String(describing: failure))")
      #expect(reason.contains(words) && reason.contains("length (Content-Length) of \(length)"), "\(reason)")
    }
    #expect(server.requests.isEmpty, "a body that disagrees with its length reached the server as a whole request")
    let empty = try await session.exchange(Self.post(server, "/", body: .init(CountedChunks(count: 0, size: 100), length: 0)))
    #expect(String(try await Self.readAll(empty)) == "0")
  }

  @Test func cancellingMidBodyStopsTheTransferAndTheSessionGoesOn() async throws {
    let pki = try TestPKI()
    let large = StreamingTests.body(16 << 20)
    let server = try LocalTLSServer.start(
      .init(identity: pki.leaf, handler: { request in request.target == "/large" ? .init(body: large) : .text("next") }))
    let session = try StreamingTests.session(for: server, pki: pki)
    let reader = Task {
      let response = try await session.exchange(CNHTTPRequest(url: server.url("/large", hostName: "api.test")))
      var received = 0
      for try await chunk in response.body.chunks {
        received += chunk.count
        if received >= 1 << 20 { withUnsafeCurrentTask { $0?.cancel() } }
      }
      return received
    }
    let failure = await error { _ = try await reader.value }
    #expect(failure?.code == .cancelled, "got \(String(describing: failure))")
    let next = try await session.exchange(CNHTTPRequest(url: server.url("/next", hostName: "api.test")))
    #expect(String(try await Self.readAll(next)) == "next")
  }

  @Test func eventsCarryTheRequestsLabel() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try StreamingTests.session(for: server, pki: pki)
    let labels = Locked<[String?]>([])
    session.setConnectionObserver { event in labels.withLock { $0.append(event.requestLabel) } }
    let labelled = CNHTTPRequest(url: server.url("/", hostName: "api.test"), label: "getGreeting")
    _ = try await Self.readAll(try await session.exchange(labelled))
    _ = try await session.data(from: server.url("/", hostName: "api.test"))
    #expect(labels.withLock { $0 } == ["getGreeting", nil])
  }

  @Test func aContentLengthThatContradictsTheBodyIsRefused() async throws {
    let session = try CNPinnedSession(manager: nil)
    let request = CNHTTPRequest(
      method: "POST", url: URL(string: "https://127.0.0.1:1/")!, headerFields: [.init(name: "Content-Length", value: "3")],
      body: .init(Data("four".utf8)))
    let failure = await error { _ = try await session.exchange(request) }
    let reason = try #require(failure?.reason(ifCode: .invalidArgument), "got \(String(describing: failure))")
    #expect(reason.contains("Content-Length"))
  }
}
#endif
