// Uses the test kit's loopback server and swift-corelibs-foundation's URLSession, which only the
// Linux build has here.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
@testable import CNPinningCurl
import CNPinningTestKit
import Foundation
import FoundationNetworking
import Testing

/// The session swap of the Apple transport, driven with real URLSessions (swift-corelibs-foundation
/// traps, as Apple's raises, when a task is made in an invalidated session).
@Suite struct SessionRotationTests {
  final class Owner: Sendable {}
  typealias Rotation = SessionRotation<Owner, Int, URLSession>

  static func rotation() -> Rotation {
    Rotation(
      make: { URLSession(configuration: .ephemeral) }, retire: { $0.finishTasksAndInvalidate() },
      cancel: { $0.invalidateAndCancel() })
  }

  /// Made once: these servers speak plain HTTP, and key generation would only load the pool.
  static let identity = Result { try TestPKI(leaf: "web.test").leaf }

  static func server() throws -> LocalTLSServer {
    var setup = LocalTLSServer.Configuration(identity: try identity.get()) { _ in .text("ok") }
    setup.behavior = .plainHTTP
    return try LocalTLSServer.start(setup)
  }

  /// Many requests while the generation keeps changing: every one gets a session it can make a
  /// task in (a replaced session is retired only after its last request), and every replaced
  /// session is retired in the end.
  @Test func requestsAcrossGenerationChangesNeverMeetARetiredSession() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let rotation = Self.rotation()
    let owner = Owner()
    let generation = Locked(0)
    let bodies = try await withThrowingTaskGroup(of: [String].self) { group in
      for worker in 0..<8 {
        group.addTask {
          var bodies: [String] = []
          for request in 0..<40 {
            // Every third request moves the pins on; the others read a generation that may be stale.
            let asked = generation.withLock { value in
              if (worker + request) % 3 == 0 { value += 1 }
              return value
            }
            let body = try await rotation.withSession(owner: owner, generation: asked) { session in
              String(try await session.data(from: server.url("/")).0)
            }
            bodies.append(body)
          }
          return bodies
        }
      }
      return try await group.reduce(into: []) { $0 += $1 }
    }
    #expect(bodies.count == 320 && bodies.allSatisfy { $0 == "ok" })
    let counts = rotation.sessionCounts
    #expect(counts.made > 1, "the generation changed, so sessions were replaced")
    #expect(counts.ended == counts.made - 1, "every replaced session is retired, the current one kept: \(counts)")
  }

  /// A stale generation (read before a change, arriving after it) uses the newer session instead
  /// of swapping back; another owner, or a newer generation, gets a new session.
  @Test func generationsNeverGoBackwards() async throws {
    let rotation = Self.rotation()
    let (first, second) = (Owner(), Owner())
    func session(_ owner: Owner, _ generation: Int) async throws -> ObjectIdentifier {
      try await rotation.withSession(owner: owner, generation: generation) { ObjectIdentifier($0) }
    }
    let newer = try await session(first, 2)
    #expect(try await session(first, 1) == newer)
    #expect(try await session(first, 2) == newer)
    let newest = try await session(first, 3)
    #expect(newest != newer)
    #expect(try await session(second, 3) != newest)
    #expect(rotation.sessionCounts == (made: 3, ended: 2))
  }

  /// A URLSession that sent a request over a connection nobody judged is taken out of service
  /// while requests still hold it (review M5): the next request gets a new URLSession, with TLS
  /// caches of its own, and the old one is retired when its last request ends. Before, the
  /// transport flushed it and went on using it: a new TCP connection, perhaps the same TLS session.
  @Test func aRetiredSessionIsReplacedAndEndsAfterItsLastLease() async throws {
    let rotation = Self.rotation()
    let owner = Owner()
    let (held, release) = AsyncStream<Void>.makeStream()
    let (retired, retiring) = AsyncStream<ObjectIdentifier>.makeStream()
    let holder = Task {
      try await rotation.withSession(owner: owner, generation: 1) { session in
        retiring.yield(ObjectIdentifier(session))
        rotation.retire(session)
        for await _ in held {}  // held until the test lets go
      }
    }
    var iterator = retired.makeAsyncIterator()
    let old = await iterator.next()
    let next = try await rotation.withSession(owner: owner, generation: 1) { ObjectIdentifier($0) }
    #expect(next != old, "the retired URLSession served the next request")
    #expect(rotation.sessionCounts == (made: 2, ended: 0), "retired while a request still held it")
    release.finish()
    try await holder.value
    #expect(rotation.sessionCounts == (made: 2, ended: 1))
    // Retiring a session already out of service changes nothing.
    let current = try await rotation.withSession(owner: owner, generation: 1) { session in
      rotation.retire(session)
      rotation.retire(session)
      return ObjectIdentifier(session)
    }
    #expect(current == next && rotation.sessionCounts == (made: 2, ended: 2))
  }

  /// `close` cancels the work of running leases, refuses new ones, and cancels every session.
  @Test func closeCancelsRunningRequestsAndRefusesNewOnes() async throws {
    let rotation = Self.rotation()
    // Four owners, so four sessions whatever order the tasks start in: each replaces the last.
    let owners = (0..<4).map { _ in Owner() }
    let started = Locked(0)
    let running = owners.map { owner in
      Task {
        try await rotation.withSession(owner: owner, generation: 0) { _ in
          started.withLock { $0 += 1 }
          try await Task.sleep(for: .seconds(60))
        }
      }
    }
    // A liveness bound: in the full suite the shared pool can be busy for seconds.
    #expect(await eventually(within: 60) { started.withLock { $0 } == 4 })
    rotation.close()
    for task in running {
      await #expect(throws: CancellationError.self) { try await task.value }
    }
    await #expect(throws: Rotation.Closed.self) {
      try await rotation.withSession(owner: owners[0], generation: 0) { _ in }
    }
    let counts = rotation.sessionCounts
    #expect(counts.made == 4 && counts.ended == 4, "\(counts)")
  }
}
#endif
