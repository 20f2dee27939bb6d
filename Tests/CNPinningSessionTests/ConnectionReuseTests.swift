// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// Connections used for request after request, by one task and by many, and a server that tries
/// to renegotiate. A debug build stops the moment a libcurl callback reaches a finished request,
/// so a lifetime error here is a crash on every run, not one run in three.
@Suite("Connection reuse", .tags(.concurrency))
struct ConnectionReuseTests {
  /// Counts events by how the request came by its connection.
  final class EventCounter: Sendable {
    private let counts = Locked<(new: Int, reused: Int, resumed: Int, refused: Int)>((0, 0, 0, 0))
    func record(_ event: CNConnectionEvent) {
      counts.withLock { counts in
        switch event.kind {
        case .new: counts.new += 1
        case .reused: counts.reused += 1
        case .resumed: counts.resumed += 1
        }
        if event.error != nil { counts.refused += 1 }
      }
    }
    var value: (new: Int, reused: Int, resumed: Int, refused: Int) { counts.withLock { $0 } }
  }

  /// A keep-alive server that keeps no request log, and a session with matching pins whose
  /// events are counted.
  static func keepAliveFixture() throws -> (LocalTLSServer, CNPinnedSession, EventCounter) {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.recordsRequests = false
    let server = try LocalTLSServer.start(setup)
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let events = EventCounter()
    session.setConnectionObserver { events.record($0) }
    return (server, session, events)
  }

  @Test func aThousandRequestsShareOneKeepAliveConnectionAndEachIsJudged() async throws {
    let (server, session, events) = try Self.keepAliveFixture()
    let url = server.url("/", hostName: "api.test")
    var statuses: [Int: Int] = [:]
    for _ in 0..<1000 { statuses[try await session.data(from: url).1.statusCode, default: 0] += 1 }
    #expect(statuses == [200: 1000])
    #expect(server.connections == 1)
    #expect(server.handshakes == 1)
    let counted = events.value
    #expect(counted.new == 1 && counted.reused == 999 && counted.resumed == 0 && counted.refused == 0, "\(counted)")
  }

  @Test func eightTasksShareKeepAliveConnectionsForAThousandRequests() async throws {
    let (server, session, events) = try Self.keepAliveFixture()
    let url = server.url("/", hostName: "api.test")
    let succeeded = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<8 {
        group.addTask {
          var count = 0
          for _ in 0..<125 where try await session.data(from: url).1.statusCode == 200 { count += 1 }
          return count
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(succeeded == 1000)
    // HTTP/1.1 carries one request at a time, so at most one connection per task.
    #expect(server.connections <= 8)
    let counted = events.value
    #expect(counted.new + counted.resumed == server.connections && counted.reused == 1000 - server.connections, "\(counted)")
    #expect(counted.refused == 0)
  }

  @Test func renegotiationIsRefusedAndEveryRequestIsStillJudged() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.maximumTLSVersion = .tls12
    setup.renegotiatesAfterEachResponse = true
    let server = try LocalTLSServer.start(setup)
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let events = EventCounter()
    session.setConnectionObserver { events.record($0) }
    let url = server.url("/", hostName: "api.test")
    var outcomes: [String: Int] = [:]
    for _ in 0..<50 {
      do {
        outcomes["\(try await session.data(from: url).1.statusCode)", default: 0] += 1
      } catch let error as CNPinnedSessionError {
        outcomes["\(error)", default: 0] += 1
      }
    }
    #expect(server.renegotiationsRequested > 0)
    #expect(server.renegotiationsCompleted == 0)
    #expect(outcomes == ["200": 50], "\(outcomes)")
    let counted = events.value
    #expect(counted.new + counted.reused + counted.resumed >= 50 && counted.refused == 0, "\(counted)")
  }

  /// `httpMaximumConnectionsPerHost`: twelve concurrent HTTP/1.1 requests to one host are never
  /// more than the limit on the server at once, and all succeed. With a limit of 12 the server
  /// sees three at once (it holds each answer until it does, for at most 20 s), which shows
  /// that the count can exceed 2 when the limit allows it.
  @Test(arguments: [2, 12])
  func concurrentRequestsUseAtMostTheConnectionLimit(limit: Int) async throws {
    let pki = try TestPKI()
    let inFlight = Locked((now: 0, most: 0))
    let server = try LocalTLSServer.start(
      .init(identity: pki.leaf) { _ in
        inFlight.withLock { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1)) }
        defer { inFlight.withLock { $0.now -= 1 } }
        let deadline = Date().addingTimeInterval(limit > 2 ? 20 : 0.2)
        while Date() < deadline, limit <= 2 || inFlight.withLock({ $0.most }) < 3 { usleep(10_000) }
        return .text("hello")
      })
    var configuration = resolving(to: server, timeout: 60)
    configuration.httpMaximumConnectionsPerHost = limit
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    let url = server.url("/", hostName: "api.test")
    try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<12 { group.addTask { String(try await session.data(from: url).0) } }
      for try await body in group { #expect(body == "hello") }
    }
    let most = inFlight.withLock { $0.most }
    if limit == 2 {
      #expect(most <= 2 && server.connections <= 2, "\(most) requests at once on \(server.connections) connections")
    } else {
      #expect(most >= 3, "\(most) requests at once on \(server.connections) connections")
    }
  }

  @Test func aConnectionLimitBelowOneIsRefused() {
    var configuration = CNPinnedSessionConfiguration()
    configuration.httpMaximumConnectionsPerHost = 0
    #expect(throws: CNPinnedSessionError.invalidArgument("httpMaximumConnectionsPerHost must be at least 1, not 0")) {
      _ = try CNPinnedSession(manager: nil, configuration: configuration)
    }
  }
}
#endif
