// Uses the test kit's loopback servers, libcurl and swift-corelibs-foundation's URLSession, which
// only the Linux build has here.
#if CNPINNING_LINUX_BACKEND
import CNPinning
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import FoundationNetworking
import Testing

/// Every timeout, wait and date a caller or a file gives the session is bounded before it becomes
/// a `Duration`, a deadline or an integer (issue 66, N1 and N11): `BoundedInterval`. Before, the
/// Apple transport's `Duration.seconds(timeoutIntervalForRequest)` trapped on every request for
/// `.infinity` or anything above about 1.7e20 s, the URLSession settings and requests handed such
/// values to a URLSession that converts them itself (swift-corelibs-foundation traps, as shown
/// here), a kept upload's `notBefore` did the same after a launch, and OpenSSL's verification time
/// was an unbounded `time_t` conversion of any `Date`.
@Suite struct TimeoutBoundsTests {
  static let values: [TimeInterval] = [.infinity, .greatestFiniteMagnitude, 0, -1, .nan]

  /// libcurl's options, the idle check and the error's seconds, on a real request for each value
  /// as the configuration's timeouts and as the request's own.
  @Test(arguments: values) func aSessionRequestTakesAnyTimeout(_ value: TimeInterval) async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    defer { server.stop() }
    var configuration = resolving(to: server, timeout: value).trusting(.customAnchors([pki.root.certificate]))
    configuration.timeoutIntervalForResource = value
    let session = try CNPinnedSession(manager: try matchingPins(), configuration: configuration)
    var request = URLRequest(url: server.url("/", hostName: "api.test"))
    request.timeoutInterval = value
    let (_, response) = try await session.data(for: request)
    #expect(response.statusCode == 200)
    let exchanged = try await session.exchange(
      CNHTTPRequest(method: "GET", url: server.url("/", hostName: "api.test"), timeoutInterval: value))
    #expect(exchanged.statusCode == 200)
  }

  /// What the Apple transport and `URLSession.cnPinned` give URLSession (the shared settings and
  /// the request), run by swift-corelibs-foundation's URLSession, which converts both to integers.
  @Test(arguments: values) func theURLSessionSettingsAndRequestTakeAnyTimeout(_ value: TimeInterval) async throws {
    var setup = LocalTLSServer.Configuration(identity: try TestPKI().leaf)
    setup.behavior = .plainHTTP
    let server = try LocalTLSServer.start(setup)
    defer { server.stop() }
    var configuration = CNPinnedSessionConfiguration()
    configuration.timeoutIntervalForRequest = value
    configuration.timeoutIntervalForResource = value
    let settings = configuration.urlSessionSettings()
    #expect(settings.timeoutIntervalForRequest > 0 && settings.timeoutIntervalForRequest <= BoundedInterval.maximum)
    let request = SessionRequest(url: server.url("/"), timeout: value).urlRequest
    #expect(request.timeoutInterval > 0 && request.timeoutInterval <= BoundedInterval.maximum)
    let session = URLSession(configuration: settings)
    defer { session.finishTasksAndInvalidate() }
    let (_, response) = try await session.data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
  }

  /// A cold burst's waiter behind an opener that never ends waits at most `longestWait`,
  /// whatever the request's timeout (the Apple transport's rule, shared).
  @Test(.tags(.concurrency)) func aWaiterWaitsAtMostTheLongestWaitWhateverTheTimeout() async throws {
    let start = Date()
    let results = await withTaskGroup(of: CNPinnedSessionError.Code?.self) { group in
      for (index, value) in Self.values.enumerated() {
        group.addTask {
          let verdicts = ConnectionVerdicts()
          verdicts.challenged(ConnectionVerdictsTests.accepted, task: 1, host: "api.test", port: 443, time: start)
          var configuration = CNPinnedSessionConfiguration()
          configuration.timeoutIntervalForRequest = value
          let timeout = configuration.requestTimeout(for: SessionRequest(url: URL(string: "https://api.test/")!, timeout: value))
          let connection = ConnectionID(
            local: "10.0.0.2", localPort: 50_200 + index, remote: "192.0.2.1", remotePort: 443)
          return await ConnectionVerdictsTests.judge(
            verdicts, task: 2, facts: ConnectionVerdictsTests.facts(connection, reused: false, sent: start + 1),
            requestTimeout: timeout
          ).refusal?.code
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results == Array(repeating: .connectionNotJudged, count: Self.values.count))
    // A liveness bound, not a timing: each wait ended by its bound.
    #expect(Date().timeIntervalSince(start) < 60)
  }

  /// OpenSSL's verification time, from a caller's date (`CNTrustEvaluator`) and from the
  /// session's clock: refused as not yet valid or expired, never a trap.
  @Test func aVerificationAtAnyDateIsRefusedNotTrapped() async throws {
    let pki = try TestPKI()
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = .customAnchors([pki.root.certificate])
    let evaluator = try CNTrustEvaluator(configuration: configuration)
    for value in Self.values + [1e300] {
      let date = Date(timeIntervalSince1970: value)
      let refused: CNPinnedSessionError.Code?
      do {
        _ = try evaluator.verify(pki.leaf.chain, for: "api.test", at: date)
        refused = nil
      } catch {
        refused = error.code
      }
      let expected: CNPinnedSessionError.Code = value > 0 ? .certificateExpired : .certificateNotYetValid
      #expect(refused == expected, "at \(value)")
    }
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    defer { server.stop() }
    var session = resolving(to: server).trusting(.customAnchors([pki.root.certificate]))
    session.clock = { Date(timeIntervalSince1970: .infinity) }
    let clocked = try CNPinnedSession(manager: nil, configuration: session)
    let error = await error(of: { _ = try await clocked.data(from: server.url("/", hostName: "api.test")) })
    #expect(error?.code == .certificateExpired)
  }

  /// `CNPolicyRescue.start(every:)` takes any `Duration`: at most a year (before, a long one
  /// trapped in `Task.sleep`), at least a minute.
  @Test func aRescueScheduleTakesAnyInterval() async throws {
    let world = try PolicyRescueTests.World()
    let rescue = try world.rescue(try world.manager(), store: nil)
    for interval: Duration in [.seconds(Int64.max), .zero, .seconds(-5), .nanoseconds(1)] {
      let fetched = world.policies.requests.count
      rescue.start(every: interval)
      // The first fetch has come: the schedule then sleeps, for a minute at least. (60 s is the
      // suite's liveness bound: a CI run beside two builds took longer than 30 s once.)
      #expect(await eventually(within: 60) { world.policies.requests.count >= fetched + 1 })
      try await Task.sleep(for: .milliseconds(100))
      rescue.stop()
      #expect(world.policies.requests.count == fetched + 1)
    }
  }
}
#endif
