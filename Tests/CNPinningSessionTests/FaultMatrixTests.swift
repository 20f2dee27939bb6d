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

/// Every fault a server, proxy or network commits, on every path it applies to: each ends in a
/// typed error naming the host and the fault (or, where HTTP says so, a correct response) within
/// the session's timeouts, leaves no socket or thread behind, and the same session's next request
/// to the same server succeeds. The suite prints the matrix's counts.
@Suite("Fault matrix")
struct FaultMatrixTests {
  /// The request (idle) timeout and the resource timeout every cell runs with.
  static let requestTimeout: TimeInterval = 2
  static let resourceTimeout: TimeInterval = 8

  enum Path: String, CaseIterable, Sendable {
    case http1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http1ThroughProxy = "HTTP/1.1 via proxy"

    func applies(_ fault: ServerFault) -> Bool { self == .http2 ? fault.appliesToHTTP2 : fault.appliesToHTTP1 }
  }

  /// What a cell must end in.
  indirect enum Expectation: Sendable {
    case failure(@Sendable (CNPinnedSessionError) -> Bool, String)
    case response(status: Int, body: String)
    /// The first, or else the second.
    case either(Expectation, Expectation)

    func or(_ other: Expectation) -> Expectation { .either(self, other) }

    /// Nil when `outcome` is what is expected, else what was wanted and what came.
    func mismatch(_ outcome: Result<(Data, HTTPURLResponse), CNPinnedSessionError>) -> String? {
      switch (self, outcome) {
      case (.failure(let matches, let wanted), .failure(let error)):
        return matches(error) ? nil : "wanted \(wanted), got \(error)"
      case (.failure(_, let wanted), .success(let (body, response))):
        return "wanted \(wanted), got \(response.statusCode) with \(body.count) bytes"
      case (.response(let status, let body), .success(let (data, response))):
        return response.statusCode == status && String(data) == body
          ? nil : "wanted \(status) \"\(body)\", got \(response.statusCode) \"\(String(data))\""
      case (.response, .failure(let error)):
        return "wanted a response, got \(error)"
      case (.either(let first, let second), _):
        guard let firstMismatch = first.mismatch(outcome), let secondMismatch = second.mismatch(outcome) else { return nil }
        return "\(firstMismatch), or \(secondMismatch)"
      }
    }
  }

  /// What a server fault must end in on `path`.
  static func expectation(for fault: ServerFault, on path: Path) -> Expectation {
    func lost(_ words: String...) -> Expectation {
      .failure(
        { error in
          guard case .connectionLost(host: "127.0.0.1", let reason) = error.kind else { return false }
          return words.isEmpty || words.contains { reason.localizedCaseInsensitiveContains($0) }
        }, "connectionLost naming the host")
    }
    func handshake() -> Expectation {
      .failure(
        { error in
          switch error.kind {
          case .tlsHandshakeFailed(host: "127.0.0.1", _), .connectionLost(host: "127.0.0.1", _): return true
          default: return false
          }
        }, "tlsHandshakeFailed or connectionLost naming the host")
    }
    func invalid(_ word: String) -> Expectation {
      .failure(
        { error in
          guard case .invalidResponse(host: "127.0.0.1", let reason) = error.kind else { return false }
          return reason.localizedCaseInsensitiveContains(word)
        }, "invalidResponse naming the host and \"\(word)\"")
    }
    func timedOut(_ seconds: TimeInterval) -> Expectation {
      .failure({ $0 == .timedOut(host: "127.0.0.1", seconds: seconds) }, "timedOut(127.0.0.1, \(seconds))")
    }
    if path == .http2 {
      switch fault {
      case .contentLengthLongerThanBody, .contentLengthShorterThanBody, .invalidChunkedEncoding:
        return invalid("PROTOCOL_ERROR")  // HTTP/2 calls a contradicted length, or Transfer-Encoding, malformed
      // The client keeps sending frames, so the server's close often meets unread bytes and
      // goes out as a reset rather than a FIN: either way the stream is lost, never complete.
      case .eofWithoutCloseNotify: return lost()
      case .resetStream: return invalid("INTERNAL_ERROR")
      // nghttp2 ends a SETTINGS flood and answers each PING. A flood is no answer to the
      // request, so on a busy machine, where reading it can take longer than the idle timeout,
      // the request may time out first; either ending is right.
      case .settingsFlood: return lost("flooding").or(timedOut(requestTimeout))
      case .pingFlood: return Expectation.response(status: 200, body: "hello").or(timedOut(requestTimeout))
      case .noFlowControlCredit: return timedOut(requestTimeout)
      case .headOverLimit, .hundredThousandHeaderLines:
        // nghttp2 ends the connection over a head past its limits before libcurl sees a field,
        // so libcurl reports an empty reply or its HTTP/2 layer's failure: not named as a head.
        return .failure(
          { error in
            switch error.kind {
            case .invalidResponse(host: "127.0.0.1", _), .connectionLost(host: "127.0.0.1", _): return true
            default: return false
            }
          }, "invalidResponse or connectionLost naming the host")
      default: break
      }
    }
    switch fault {
    case .resetDuringHandshake, .alertDuringHandshake: return handshake()
    case .resetAfterRequest, .resetMidHeaders, .resetMidBody: return lost()
    case .eofWithoutCloseNotify: return lost("eof", "truncat")
    case .contentLengthLongerThanBody: return lost("500 bytes remaining", "truncat")
    case .contentLengthShorterThanBody: return .response(status: 200, body: "hello")
    case .invalidChunkedEncoding: return invalid("chunk")
    case .headOverLimit, .hundredThousandHeaderLines: return invalid("head")
    case .stallAfterHeaders: return timedOut(requestTimeout)
    case .oneBytePerSecond: return timedOut(resourceTimeout)
    case .closeWhenReused, .goAwayWithStreamsInFlight: return .response(status: 200, body: "hello")
    case .resetStream, .settingsFlood, .pingFlood, .noFlowControlCredit:
      return .failure({ _ in false }, "a fault of HTTP/2 only")
    }
  }

  /// One cell's result, for the matrix.
  struct Cell: Sendable {
    let name: String
    var problems: [String] = []
    var hung = false
    var leaked = false
  }

  static func session(path: Path, proxyPort: Int?, trust: TestIdentity) throws -> CNPinnedSession {
    var configuration = CNPinnedSessionConfiguration()
    configuration.timeoutIntervalForRequest = requestTimeout
    configuration.timeoutIntervalForResource = resourceTimeout
    configuration.proxy = proxyPort.map { .http(host: "127.0.0.1", port: $0) } ?? .direct
    let manager = try pins("127.0.0.1", [(.prefixWithNumber, "Test Root X"), (.prefixWithNumber, "R"), (.exact, "api.test")])
    return try CNPinnedSession(manager: manager, configuration: configuration.trusting(.customAnchors([trust.certificate])))
  }

  /// Runs `fault` on `path`: a request that meets it, then a request that must succeed, then the
  /// check that nothing was left behind once session and server are gone.
  static func run(_ fault: ServerFault, on path: Path) async -> Cell {
    var cell = Cell(name: "\(fault.rawValue) × \(path.rawValue)")
    do {
      let pki = try TestPKI()
      var setup = LocalTLSServer.Configuration(identity: pki.leaf)
      setup.fault = fault
      setup.servesHTTP2 = path == .http2
      var server: LocalTLSServer? = try LocalTLSServer.start(setup)
      let proxy = path == .http1ThroughProxy ? try await offTheSharedThreads { try TestProxy.start() } : nil
      var session: CNPinnedSession? = try session(path: path, proxyPort: proxy?.port, trust: pki.root)
      let ports = [server!.port] + (proxy.map { [$0.port] } ?? [])
      let threads: Set<String> = ["TLSAccept-\(server!.port)", "TLSConn-\(server!.port)", session!.threadName]
      let url = URL(string: "https://127.0.0.1:\(server!.port)/")!

      if fault.meetsSecondRequest {
        _ = try await session!.data(from: url)  // opens the connection the fault then closes
      }
      var request = URLRequest(url: url)
      if fault == .noFlowControlCredit {
        request.httpMethod = "PUT"
        request.httpBody = Data(repeating: 1, count: 200_000)  // beyond the 65,535 bytes sent before SETTINGS
      }
      let networkTime = Locked<Double?>(nil)
      session!.setNetworkTimeObserver { nanoseconds in networkTime.withLock { $0 = Double(nanoseconds) / 1e9 } }
      let outcome: Result<(Data, HTTPURLResponse), CNPinnedSessionError>
      do {
        outcome = .success(try await session!.data(for: request))
      } catch let error as CNPinnedSessionError {
        outcome = .failure(error)
      }
      if let spent = networkTime.withLock({ $0 }), spent > resourceTimeout + 5 {
        cell.hung = true
        cell.problems.append("took \(spent) s on the network thread")
      }
      if let mismatch = expectation(for: fault, on: path).mismatch(outcome) { cell.problems.append(mismatch) }
      if server!.faultsCommitted != 1 { cell.problems.append("the server committed the fault \(server!.faultsCommitted) times") }

      session!.setNetworkTimeObserver(nil)
      do {
        let (body, response) = try await session!.data(from: url)
        if response.statusCode != 200 || String(body) != "hello" {
          cell.problems.append("the next request got \(response.statusCode) \"\(String(body))\"")
        }
      } catch {
        cell.problems.append("the next request failed: \(error)")
      }

      let leftovers = Leftovers(session, server, proxy)
      session = nil
      server = nil
      await leftovers.release()
      let released = await eventually(within: 30) {
        ports.allSatisfy { HostileServerTests.sockets(port: $0) == 0 } && HostileServerTests.threads(named: threads) == 0
      }
      if !released {
        cell.leaked = true
        cell.problems.append(
          "left behind: \(ports.map { HostileServerTests.sockets(port: $0) }) sockets, "
            + "\(HostileServerTests.threads(named: threads)) threads")
      }
    } catch {
      cell.problems.append("could not run: \(error)")
    }
    return cell
  }

  /// The keep-alive race: the server closes a reused connection as the next request arrives.
  /// A GET goes again on a fresh connection (libcurl retries any request that got no byte back
  /// on a reused connection); a POST whose body was sent does not (RFC 9110 §9.2.2: the server
  /// may have acted on it), and fails naming why.
  @Test(arguments: ["GET", "POST"])
  func aRequestOnAConnectionClosedAsItIsReusedIsRetriedOnlyWhenIdempotent(method: String) async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.fault = .closeWhenReused
    let server = try LocalTLSServer.start(setup)
    let session = try Self.session(path: .http1, proxyPort: nil, trust: pki.root)
    var request = URLRequest(url: URL(string: "https://127.0.0.1:\(server.port)/")!)
    _ = try await session.data(for: request)
    request.httpMethod = method
    if method == "POST" { request.httpBody = Data("order=1".utf8) }
    if method == "GET" {
      #expect(String(try await session.data(for: request).0) == "hello")
      #expect(server.requests.map(\.method) == ["GET", "GET", "GET"], "sent again after the close")
    } else {
      let failure = await error { _ = try await session.data(for: request) }
      guard case .connectionLost(host: "127.0.0.1", let reason) = failure?.kind else {
        Issue.record("wanted connectionLost, got \(String(describing: failure))")
        return
      }
      #expect(reason.contains("not sent again"), "\(reason)")
      #expect(server.requests.map(\.method) == ["GET", "POST"], "the POST was sent once")
    }
    #expect(String(try await session.data(from: URL(string: "https://127.0.0.1:\(server.port)/")!).0) == "hello")
  }

  /// Faults of the network and of proxies, with no misbehaving origin.
  enum NetworkFault: String, CaseIterable, Sendable {
    case connectionRefused, nameDoesNotResolve
    case proxyNotListening, proxyAnswersGarbage, proxyRefusesTunnel, proxyDiesMidTunnel

    /// The paths: directly and through tinyproxy for the first two, through the faulty proxy
    /// (or none listening) for the others.
    var paths: [String] {
      switch self {
      case .connectionRefused, .nameDoesNotResolve: ["direct", "via proxy"]
      default: ["via proxy"]
      }
    }
  }

  static func run(_ fault: NetworkFault, direct: Bool) async -> Cell {
    let name = "\(fault.rawValue) × \(direct ? "direct" : "via proxy")"
    do {
      return try await withRefusedPort { closedPort in await run(fault, direct: direct, name: name, closedPort: closedPort) }
    } catch {
      var cell = Cell(name: name)
      cell.problems.append("no port to refuse connections: \(error)")
      return cell
    }
  }

  /// One cell; `closedPort` refuses connections for as long as the cell runs.
  static func run(_ fault: NetworkFault, direct: Bool, name: String, closedPort: Int) async -> Cell {
    var cell = Cell(name: name)
    do {
      let pki = try TestPKI()
      var origin: LocalTLSServer? = try LocalTLSServer.start(
        .init(identity: pki.leaf) { request in
          request.target == "/big" ? .init(body: Data(repeating: 7, count: 1 << 20)) : .text("hello")
        })
      let originPort = origin!.port
      var faulty: MisbehavingProxy?
      var tinyproxy: TestProxy?
      var proxyPort: Int?
      switch fault {
      case .proxyAnswersGarbage: faulty = try MisbehavingProxy(fault: .answersGarbage)
      case .proxyRefusesTunnel: faulty = try MisbehavingProxy(fault: .refusesTunnel)
      case .proxyDiesMidTunnel: faulty = try MisbehavingProxy(fault: .diesMidTunnel)
      case .proxyNotListening: proxyPort = closedPort
      case .connectionRefused, .nameDoesNotResolve:
        if !direct { tinyproxy = try await offTheSharedThreads { try TestProxy.start() } }
      }
      proxyPort = faulty?.port ?? tinyproxy?.port ?? proxyPort
      var session: CNPinnedSession? = try session(path: .http1, proxyPort: proxyPort, trust: pki.root)
      let threads = Set(["TLSAccept-\(originPort)", "TLSConn-\(originPort)", session!.threadName])
        .union(faulty.map { ["Proxy-\($0.port)"] } ?? [])
      let target: URL
      switch fault {
      case .connectionRefused: target = URL(string: "https://127.0.0.1:\(closedPort)/")!
      case .nameDoesNotResolve: target = URL(string: "https://name-that-does-not-resolve.invalid:\(originPort)/")!
      case .proxyDiesMidTunnel: target = URL(string: "https://127.0.0.1:\(originPort)/big")!
      default: target = URL(string: "https://127.0.0.1:\(originPort)/")!
      }
      let proxyName = "127.0.0.1:\(proxyPort ?? 0)"
      let wanted: (CNPinnedSessionError) -> Bool
      switch (fault, direct) {
      case (.connectionRefused, true): wanted = { $0 == .connectionRefused(host: "127.0.0.1", port: closedPort) }
      case (.nameDoesNotResolve, true): wanted = { $0 == .cannotResolveHost(host: "name-that-does-not-resolve.invalid") }
      case (.connectionRefused, false), (.nameDoesNotResolve, false):
        wanted = {
          guard case .proxyFailed(proxy: proxyName, let reason) = $0.kind else { return false }
          return reason.contains("CONNECT \(target.host!):\(target.port!) was answered")
        }
      case (.proxyNotListening, _): wanted = { $0 == .proxyFailed(proxy: proxyName, reason: "connection refused") }
      case (.proxyAnswersGarbage, _):
        wanted = {
          if case .proxyFailed(proxy: proxyName, let reason) = $0.kind { return reason.contains("no valid answer to CONNECT") }
          return false
        }
      case (.proxyRefusesTunnel, _):
        wanted = {
          if case .proxyFailed(proxy: proxyName, let reason) = $0.kind { return reason.contains("answered 403") }
          return false
        }
      case (.proxyDiesMidTunnel, _):
        wanted = {
          if case .connectionLost(host: "127.0.0.1", _) = $0.kind { return true }
          return false
        }
      }
      let networkTime = Locked<Double?>(nil)
      session!.setNetworkTimeObserver { nanoseconds in networkTime.withLock { $0 = Double(nanoseconds) / 1e9 } }
      do {
        let (body, response) = try await session!.data(from: target)
        cell.problems.append("wanted a typed error, got \(response.statusCode) with \(body.count) bytes")
      } catch let error as CNPinnedSessionError {
        if !wanted(error) { cell.problems.append("unexpected error: \(error)") }
      }
      if let spent = networkTime.withLock({ $0 }), spent > resourceTimeout + 5 {
        cell.hung = true
        cell.problems.append("took \(spent) s on the network thread")
      }
      session!.setNetworkTimeObserver(nil)
      // The session's next request, to a server that works (no proxy for the one not listening).
      if fault != .proxyNotListening {
        do {
          let (body, _) = try await session!.data(from: URL(string: "https://127.0.0.1:\(originPort)/")!)
          if String(body) != "hello" { cell.problems.append("the next request got \"\(String(body))\"") }
        } catch {
          cell.problems.append("the next request failed: \(error)")
        }
      }
      let leftovers = Leftovers(session, origin, faulty, tinyproxy)
      session = nil
      origin = nil
      faulty = nil
      tinyproxy = nil
      await leftovers.release()
      let ports = [originPort] + (proxyPort.map { [$0] } ?? [])
      let released = await eventually(within: 30) {
        ports.allSatisfy { HostileServerTests.sockets(port: $0) == 0 } && HostileServerTests.threads(named: threads) == 0
      }
      if !released {
        cell.leaked = true
        cell.problems.append("left behind: \(ports.map { HostileServerTests.sockets(port: $0) }) sockets")
      }
    } catch {
      cell.problems.append("could not run: \(error)")
    }
    return cell
  }

  /// A server that closes an idle keep-alive connection with close_notify (as nginx does at its
  /// keepalive_timeout) leaves it looking alive to libcurl, whose check only peeks for a FIN; a
  /// POST sent next must go on a fresh connection, not fail as a request that may have been
  /// acted on (nothing of it was sent).
  @Test func aPostAfterTheServerClosedTheIdleConnectionGoesOnAFreshOne() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.idleTimeout = 1
    let server = try LocalTLSServer.start(setup)
    let session = try Self.session(path: .http1, proxyPort: nil, trust: pki.root)
    let url = URL(string: "https://127.0.0.1:\(server.port)/")!
    _ = try await session.data(from: url)
    #expect(await eventually(within: 30) { server.openConnections == 0 }, "the server closed the idle connection")
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data("order=1".utf8)
    #expect(String(try await session.data(for: request).0) == "hello")
    #expect(server.requests.map(\.method) == ["GET", "POST"])
    #expect(server.connections == 2)
  }

  /// A request refused with GOAWAY on a reused HTTP/2 connection is sent again on a fresh one,
  /// and reports both connections' verdicts, in order: the reused one's, then the fresh one's.
  @Test func aRequestSentAgainAfterGOAWAYReportsTheVerdictsOfBothConnections() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.fault = .goAwayWithStreamsInFlight
    setup.servesHTTP2 = true
    let server = try LocalTLSServer.start(setup)
    let session = try Self.session(path: .http2, proxyPort: nil, trust: pki.root)
    let url = URL(string: "https://127.0.0.1:\(server.port)/")!
    _ = try await session.data(from: url)  // opens the connection the fault then ends
    let events = Locked<[CNConnectionEvent]>([])
    session.setConnectionObserver { event in events.withLock { $0.append(event) } }
    #expect(String(try await session.data(from: url).0) == "hello")
    #expect(server.faultsCommitted == 1)
    #expect(server.connections == 2)
    let seen = events.withLock { $0 }
    #expect(seen.count == 2)
    #expect(seen.first?.kind == .reused)
    #expect(seen.last.map { $0.kind != .reused } == true, "the fresh connection's verdict (new, or a resumed session)")
    #expect(seen.allSatisfy { $0.error == nil && $0.pinning != nil })
  }

  @Test func everyFaultOnEveryPathFailsCleanlyAndTheSessionRecovers() async throws {
    enum Run: Sendable {
      case server(ServerFault, Path)
      case network(NetworkFault, direct: Bool)
    }
    let cells =
      ServerFault.allCases.flatMap { fault in Path.allCases.filter { $0.applies(fault) }.map { Run.server(fault, $0) } }
      + NetworkFault.allCases.flatMap { fault in fault.paths.map { Run.network(fault, direct: $0 == "direct") } }
    @Sendable func perform(_ run: Run) async -> Cell {
      switch run {
      case .server(let fault, let path): await Self.run(fault, on: path)
      case .network(let fault, let direct): await Self.run(fault, direct: direct)
      }
    }
    var results: [Cell] = []
    // Three cells at a time: each holds a server, maybe a proxy, and a session thread, and the
    // floods and oversized heads are CPU work that the rest of the suite shares two cores with.
    await withTaskGroup(of: Cell.self) { group in
      var next = cells.makeIterator()
      for _ in 0..<3 {
        guard let run = next.next() else { break }
        group.addTask { await perform(run) }
      }
      for await cell in group {
        results.append(cell)
        if let run = next.next() { group.addTask { await perform(run) } }
      }
    }
    for cell in results.sorted(by: { $0.name < $1.name }) where !cell.problems.isEmpty {
      Issue.record("\(cell.name): \(cell.problems.joined(separator: "; "))")
    }
    let failed = results.filter { !$0.problems.isEmpty }.count
    print(
      "fault matrix: \(ServerFault.allCases.count + NetworkFault.allCases.count) faults × "
        + "\(Path.allCases.count) paths (where they apply) = \(results.count) cells, "
        + "\(failed) wrong, \(results.filter(\.hung).count) hangs, \(results.filter(\.leaked).count) leaks")
    #expect(results.count == cells.count)
  }
}
#endif
