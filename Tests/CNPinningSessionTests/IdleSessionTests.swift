// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@_spi(Measurement) import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request that finds its session idle drives libcurl on its own thread (no hand-off to the
/// network thread and back), and gives the session to the network thread as soon as anything
/// else needs it: another request, a cancellation, the session's end. The budget here is a
/// minute, so that every idle request takes that path however busy the machine is; the held
/// requests run off the shared threads, since a request that drives the session blocks its
/// thread while it waits.
@Suite("Requests on an idle session", .serialized, .tags(.concurrency))
struct IdleSessionTests {
  /// Holds `/held` answers until opened (or for at most 30 s).
  final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func wait() { _ = semaphore.wait(timeout: .now() + 30) }
    func open() { for _ in 0..<8 { semaphore.signal() } }
  }

  /// A keep-alive HTTP/1.1 server whose `/held` waits for `gate` and whose other paths answer at
  /// once, and a session with matching pins and `budget`.
  static func fixture(budget: Duration = .seconds(60), gate: Gate = Gate(), body: Data = Data("ok".utf8)) throws
    -> (LocalTLSServer, CNPinnedSession)
  {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(
        identity: pki.leaf,
        handler: { request in
          if request.target == "/held" { gate.wait() }
          return .init(body: body)
        }))
    var configuration = resolving(to: server, timeout: 60).trusting(.customAnchors([pki.root.certificate]))
    configuration.borrowBudget = budget
    return (server, try CNPinnedSession(manager: try matchingPins(), configuration: configuration))
  }

  /// Waits (at most 10 s) until the server has received a request for `target`.
  static func awaitRequest(_ target: String, at server: LocalTLSServer) async throws {
    for _ in 0..<1000 {
      if server.requests.contains(where: { $0.target == target }) { return }
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    Issue.record("the server never received \(target)")
  }

  @Test func eachRequestOnAnIdleSessionAfterAQuickOneDrivesItOnItsOwnThread() async throws {
    let (server, session) = try Self.fixture()
    let url = server.url("/", hostName: "api.test")
    #expect(try await session.data(from: url).1.statusCode == 200)
    // A new session's first request goes to the network thread; every later one (each took less
    // than the budget) drives the idle session itself.
    #expect(session.borrowedTransfers == 0)
    for _ in 0..<20 { #expect(try await session.data(from: url).1.statusCode == 200) }
    #expect(session.borrowedTransfers == 20)
    #expect(server.connections == 1)
  }

  @Test func aZeroBudgetLeavesEveryRequestToTheNetworkThread() async throws {
    let (server, session) = try Self.fixture(budget: .zero)
    let url = server.url("/", hostName: "api.test")
    for _ in 0..<20 { #expect(try await session.data(from: url).1.statusCode == 200) }
    #expect(session.borrowedTransfers == 0)
  }

  /// While a request that drives the session waits for a slow answer, the requests after it are
  /// served: the first one queued takes the session to the network thread.
  @Test func aSlowAnswerDoesNotHoldBackTheRequestsAfterIt() async throws {
    let gate = Gate()
    let (server, session) = try Self.fixture(gate: gate)
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    let held = Task { try await offTheSharedThreads { try await session.data(from: server.url("/held", hostName: "api.test")) } }
    try await Self.awaitRequest("/held", at: server)
    #expect(session.borrowedTransfers == 1)
    let quick = server.url("/quick", hostName: "api.test")
    for _ in 0..<10 { #expect(try await session.data(from: quick).1.statusCode == 200) }
    // The held request still waits, on the network thread now; the others took no borrow while
    // it was running.
    #expect(session.borrowedTransfers == 1)
    #expect(server.requests.filter { $0.target == "/quick" }.count == 10)
    gate.open()
    #expect(try await held.value.1.statusCode == 200)
  }

  @Test func cancellingARequestThatDrivesTheSessionEndsItAtOnce() async throws {
    let gate = Gate()
    defer { gate.open() }
    let (server, session) = try Self.fixture(gate: gate)
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    let held = Task { try await offTheSharedThreads { try await session.data(from: server.url("/held", hostName: "api.test")) } }
    try await Self.awaitRequest("/held", at: server)
    #expect(session.borrowedTransfers == 1)
    let started = ContinuousClock.now
    held.cancel()
    let failure = await error(of: { _ = try await held.value })
    #expect(failure == .cancelled)
    // Well before the gate's 30 s or the budget's minute.
    #expect(ContinuousClock.now - started < .seconds(10))
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  @Test func invalidatingTheSessionEndsARequestThatDrivesIt() async throws {
    let gate = Gate()
    defer { gate.open() }
    let (server, session) = try Self.fixture(gate: gate)
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    let held = Task { try await offTheSharedThreads { try await session.data(from: server.url("/held", hostName: "api.test")) } }
    try await Self.awaitRequest("/held", at: server)
    session.invalidateAndCancel()
    let failure = await error(of: { _ = try await held.value })
    #expect(failure == .sessionInvalidated)
  }

  /// A streamed body goes on after the request that drove the session has its response.
  @Test func aStreamedBodyOutlivesTheRequestThatStartedIt() async throws {
    let expected = Data.pattern(4 << 20, multiplier: 31)
    let (server, session) = try Self.fixture(body: expected)
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    let (bytes, response) = try await session.bytes(from: server.url("/", hostName: "api.test"))
    #expect(response.statusCode == 200)
    var received = Data()
    for try await chunk in bytes.chunks { received.append(chunk) }
    #expect(identical(received, expected))
    #expect(session.borrowedTransfers == 1)
  }

  /// The session goes from idle (a request drives it) to busy (the network thread drives it)
  /// and back, 200 turns: a wake-up missed at either hand-over would leave a request waiting for
  /// ever (there is no poll timeout), so each must come back well within the bound.
  @Test func idleAndBusyTurnsNeverStrandARequest() async throws {
    let (server, session) = try Self.fixture()
    let url = server.url("/", hostName: "api.test")
    let slowest = Locked<UInt64>(0)
    session.setNetworkTimeObserver { nanoseconds in slowest.withLock { $0 = max($0, nanoseconds) } }
    for _ in 0..<200 {
      #expect(try await session.data(from: url).1.statusCode == 200)
      try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<8 { group.addTask { try await session.data(from: url).1.statusCode } }
        for try await status in group { #expect(status == 200) }
      }
    }
    // The second request at least found the session idle after a quick one and drove it; how
    // many more did depends on how the tasks were scheduled (the hand-over to the network
    // thread is `aSlowAnswer…`'s).
    #expect(session.borrowedTransfers >= 1)
    // A missed wake-up is a hang; this bound only catches one the test would otherwise wait out.
    #expect(slowest.withLock { $0 } < 20_000_000_000)
  }
}
#endif
