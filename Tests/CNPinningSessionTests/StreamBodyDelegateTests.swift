// Uses the test kit's loopback server and swift-corelibs-foundation's URLSession, which only the
// Linux build has here.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import FoundationNetworking
import Testing

/// The Apple transport's stream delegate, moved out of its Apple-only file (issue 53, item 3),
/// driven by real URLSessions against a loopback server: the head is judged before a byte of the
/// body is let through (held by the delegate, since swift-corelibs-foundation, unlike Apple's
/// URLSession, delivers it before the head's answer), the body reaches the channel, a refused head cancels the task (before,
/// it only answered `.cancel`, which swift-corelibs-foundation ignores), and a
/// challenge's rejection is the task's outcome. (Suspending at a full channel is `ChunkFeed`'s,
/// tested with scripted sources: swift-corelibs-foundation cannot resume a suspended transfer.)
@Suite struct StreamBodyDelegateTests {
  static let body = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

  static func server(paced: Bool = true) throws -> LocalTLSServer {
    // Paced (16 pieces 50 ms apart), so that a refusal of the head lands while the body flows:
    // swift-corelibs-foundation does not wait for the head's answer before delivering the rest.
    var setup = LocalTLSServer.Configuration(identity: try TaskBodyDelegateTests.identity.get()) { _ in
      var response = LocalTLSServer.Response(body: Self.body)
      if paced { response.pacing = (16 << 10, { index in if index > 0 { Thread.sleep(forTimeInterval: 0.05) } }) }
      return response
    }
    setup.behavior = .plainHTTP
    return try LocalTLSServer.start(setup)
  }

  /// Runs a stream of `/` through the delegate; `accept` answers its head.
  static func run(
    _ server: LocalTLSServer, accept: Bool, rejection: CNPinnedSessionError? = nil, limit: Int = 1 << 20
  ) async -> (failure: CNPinnedSessionError?, heads: [Int], body: Data, bodyBeforeAnswer: Int) {
    let channel = ResponseBodyChannel()
    let heads = Locked<[Int]>([])
    let early = Locked(0)
    let answered = Locked(false)
    let respond: @Sendable (Result<HTTPURLResponse, CNPinnedSessionError>, Int) async -> Bool = { response, _ in
      heads.withLock { $0.append((try? response.get())?.statusCode ?? -1) }
      // A judgement that takes a while (the transport's waits for facts): body arrives meanwhile.
      try? await Task.sleep(for: .milliseconds(200))
      answered.withLock { $0 = true }
      return accept
    }
    let delegate = StreamBodyDelegate(
      host: "127.0.0.1", rejection: { rejection }, upload: nil, channel: channel, limit: limit, progress: nil,
      translate: { ($0 as? URLError)?.code == .cancelled ? .cancelled : .transferFailed(host: "127.0.0.1", reason: "\($0)") },
      respond: respond)
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let reader = Task { () -> Data in
      var data = Data()
      while let chunk = try? await channel.next() {
        if !answered.withLock({ $0 }) { early.withLock { $0 += chunk.count } }
        data.append(chunk)
      }
      return data
    }
    let (failure, _) = await delegate.run(URLRequest(url: server.url("/")), in: session)
    channel.finish(failure)
    return (failure, heads.withLock { $0 }, await reader.value, early.withLock { $0 })
  }

  @Test func anAcceptedHeadLetsTheBodyThroughAsItArrives() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let run = await Self.run(server, accept: true)
    #expect(run.failure == nil)
    #expect(run.heads == [200])
    #expect(run.body == Self.body && run.bodyBeforeAnswer == 0)
  }

  @Test func aRefusedHeadCancelsTheTaskAndARejectionIsItsOutcome() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let refused = await Self.run(server, accept: false)
    #expect(refused.heads == [200] && refused.body.isEmpty)
    #expect(refused.failure == .cancelled)
    let rejection = CNPinnedSessionError.connectionNotJudged(host: "127.0.0.1", reason: "test")
    let rejected = await Self.run(server, accept: false, rejection: rejection)
    #expect(rejected.failure == rejection)
  }

  /// A task that ends before its head is answered (swift-corelibs-foundation does not wait for
  /// the answer; Apple's URLSession does): the stream's end waits for the answer, so an accepted
  /// head still gets its whole body and a refused one its refusal. Before, the stream ended
  /// whole with the held body lost, and a refusal that came after the end was no failure.
  @Test func aTaskThatEndsBeforeItsHeadIsAnsweredWaitsForTheAnswer() async throws {
    let server = try Self.server(paced: false)
    defer { server.stop() }
    let accepted = await Self.run(server, accept: true)
    #expect(accepted.failure == nil && accepted.body == Self.body)
    let refused = await Self.run(server, accept: false)
    #expect(refused.failure == .cancelled && refused.body.isEmpty)
  }

  /// Body held for the head's answer is bounded by the limit: past it the task is stopped with
  /// `responseTooLarge`, what was held is dropped, and nothing reaches the reader.
  @Test func bodyHeldForTheAnswerStopsAtTheLimit() async throws {
    let server = try Self.server(paced: false)
    defer { server.stop() }
    let run = await Self.run(server, accept: true, limit: 16 << 10)
    #expect(run.failure == .responseTooLarge(host: "127.0.0.1", limit: 16 << 10))
    #expect(run.body.isEmpty)
  }
}
#endif
