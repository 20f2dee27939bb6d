// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// A reused connection's verdict is kept for its next request (`KeptVerdict`) only while judging
/// again would give the same: each test changes the time or the pins between two requests on one
/// keep-alive connection, and the later request must be judged on the change.
@Suite("Kept verdicts")
struct KeptVerdictTests {
  /// A keep-alive server whose leaf is valid for another hour, and a session whose clock is moved
  /// on by `shift` seconds, with its connection events counted.
  struct Fixture {
    let server: LocalTLSServer
    let session: CNPinnedSession
    let shift = Locked<TimeInterval>(0)
    let events = ConnectionReuseTests.EventCounter()
    var url: URL { server.url("/", hostName: "api.test") }

    init(manager: CNPinningManager, unpinnedHosts: CNUnpinnedHostPolicy = .allow) throws {
      let pki = try TestPKI(leafSpec: { $0.notAfter = 3600 })
      server = try LocalTLSServer.start(.init(identity: pki.leaf))
      var configuration = resolving(to: server).trusting(.customAnchors([pki.root.certificate]))
      configuration.unpinnedHosts = unpinnedHosts
      configuration.clock = { [shift] in Date().addingTimeInterval(shift.withLock { $0 }) }
      session = try CNPinnedSession(manager: manager, configuration: configuration)
      session.setConnectionObserver { [events] in events.record($0) }
    }
  }

  /// Two requests on one connection, then `change`, then a third request on it: its error, once
  /// the events show that it was refused on the reused connection.
  static func errorOnTheReusedConnection(_ fixture: Fixture, after change: () throws -> Void) async throws
    -> CNPinnedSessionError?
  {
    for _ in 0..<2 { #expect(try await fixture.session.data(from: fixture.url).1.statusCode == 200) }
    try change()
    let error = await error { _ = try await fixture.session.data(from: fixture.url) }
    let counted = fixture.events.value
    #expect(counted.new == 1 && counted.reused == 2 && counted.refused == 1, "refused on the reused connection: \(counted)")
    return error
  }

  @Test func aReusedConnectionIsRefusedOnceItsLeafHasExpired() async throws {
    let fixture = try Fixture(manager: try matchingPins())
    let error = try await Self.errorOnTheReusedConnection(fixture) { fixture.shift.withLock { $0 = 7200 } }
    #expect(error == .certificateExpired(host: "api.test"))
  }

  @Test func aReusedConnectionIsJudgedOnPinsThatExpiredSinceItsLastRequest() async throws {
    let pinned = try CNConfiguration(
      chains: try matchingPins().configuration(for: "api.test")!.configuration.chains,
      expirationDate: Date().addingTimeInterval(3000))
    let fixture = try Fixture(manager: try CNPinningManager(configuration: ["api.test": pinned]), unpinnedHosts: .deny)
    // Past the pins' expiry, the leaf still valid: the host is no longer pinned, which this
    // session refuses.
    let error = try await Self.errorOnTheReusedConnection(fixture) { fixture.shift.withLock { $0 = 3300 } }
    #expect(error == .hostNotPinned(host: "api.test"))
  }

  @Test func aReusedConnectionIsJudgedUnderTheSessionsNewPins() async throws {
    let fixture = try Fixture(manager: try matchingPins())
    let error = try await Self.errorOnTheReusedConnection(fixture) {
      fixture.session.manager = try pins("api.test", [(.exact, "Another Root")])
    }
    #expect(error?.pinFailure != nil)
  }
}
#endif
