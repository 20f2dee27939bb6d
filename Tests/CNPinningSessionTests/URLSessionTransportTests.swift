// Uses the test kit's loopback server and swift-corelibs-foundation's URLSession, which only the
// Linux build has here.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import FoundationNetworking
import Testing

/// The Apple platforms' transport, whole (issue 66, item 4: every branch of it is shared code
/// now), run on Linux over swift-corelibs-foundation's URLSession with the shared delegates, which
/// have no challenge method: corelibs never sends a server-trust challenge. So plain http on
/// loopback, and "must be judged" made by custom anchors, where nothing can judge a connection.
@Suite(.tags(.concurrency)) struct URLSessionTransportTests {
  /// The transport as `URLSessionTransport(configuration:)` makes it on Apple platforms, with
  /// corelibs' URLSession and the delegates without a challenge method.
  static func transport(_ configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError) -> URLSessionTransport {
    try URLSessionTransport(
      configuration: configuration,
      makeSession: {
        URLSession(configuration: configuration.transportURLSessionSettings(), delegate: TaskDelegates(), delegateQueue: nil)
      },
      delegates: .init(
        task: { TaskBodyDelegate(plan: $1) },
        stream: { challenges, upload, channel, limit, progress, translate, respond in
          StreamBodyDelegate(
            host: challenges.settings.host, rejection: { challenges.rejection }, upload: upload, channel: channel,
            limit: limit, progress: progress, translate: translate, respond: respond)
        },
        chunkStream: { _, _ in nil }))
  }

  /// What Apple's URLSession does and swift-corelibs-foundation's does not (it never calls a
  /// task's `delegate`): each message about a task goes to the task's delegate, else is answered
  /// as `RedirectRefusal`, the session's delegate, answers it. Forwards every message the shared
  /// delegates take, in the order and on the queue corelibs sends it.
  final class TaskDelegates: NSObject, URLSessionDataDelegate, Sendable {
    private func delegate(of task: URLSessionTask) -> URLSessionDataDelegate? { task.delegate as? URLSessionDataDelegate }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      guard let delegate = delegate(of: dataTask) else { return completionHandler(.allow) }
      delegate.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      delegate(of: dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
      delegate(of: task)?.urlSession(session, task: task, didCompleteWithError: error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
      delegate(of: task)?.urlSession(session, task: task, didFinishCollecting: metrics)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
      guard let delegate = delegate(of: task) else { return completionHandler(nil) }
      delegate.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
      newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      guard let delegate = delegate(of: task) else { return completionHandler(nil) }
      delegate.urlSession(
        session, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: completionHandler)
    }
  }

  static func server() throws -> LocalTLSServer {
    var setup = LocalTLSServer.Configuration(identity: try TestPKI().leaf) { _ in .text("hello") }
    setup.behavior = .plainHTTP
    return try LocalTLSServer.start(setup)
  }

  /// A session over the transport, and the transports it made (its report uploads make theirs).
  static func session(trust: CNTrust = .system) throws -> (CNPinnedSession, Locked<[URLSessionTransport]>) {
    var configuration = CNPinnedSessionConfiguration()
    configuration.transportSecurity = .disabled
    configuration.trust = trust
    let made = Locked<[URLSessionTransport]>([])
    let session = try CNPinnedSession(manager: nil, configuration: configuration) { configuration throws(CNPinnedSessionError) in
      let transport = try Self.transport(configuration)
      made.withLock { $0.append(transport) }
      return transport
    }
    return (session, made)
  }

  @Test func aHostLeftToTheSystemIsLoadedAndStreamed() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let (session, _) = try Self.session()
    let (data, response) = try await session.data(from: server.url("/"))
    #expect(response.statusCode == 200 && data == Data("hello".utf8))
    let (bytes, streamed) = try await session.bytes(for: URLRequest(url: server.url("/")))
    #expect(streamed.statusCode == 200)
    var body = Data()
    for try await byte in bytes { body.append(byte) }
    #expect(body == Data("hello".utf8))
  }

  /// Review N5: a stream refused at its head (nothing judged its connection) is judged, emitted
  /// and reported once, with the hop. Before, its end judged it again and emitted a second event.
  @Test func aStreamRefusedAtItsHeadIsEmittedOnce() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let (session, transports) = try Self.session(trust: .customAnchors([try TestPKI().root.certificate]))
    let events = Locked<[CNConnectionEvent]>([])
    session.setConnectionObserver { event in events.withLock { $0.append(event) } }
    let error = await error(of: { _ = try await session.bytes(for: URLRequest(url: server.url("/"))) })
    #expect(error?.code == .connectionNotJudged)
    // The refusal retired the URLSession, which ends when the stream's lease does: after its end
    // was handled (where it was judged and emitted again).
    let transport = try #require(transports.withLock { $0.first })
    #expect(await eventually(within: 30) { transport.sessionCounts.ended == 1 })
    #expect(events.withLock { $0.count } == 1, "\(events.withLock { $0 })")
    // A data task is refused the same way, before its bytes reach the caller.
    #expect(await self.error(of: { _ = try await session.data(from: server.url("/")) })?.code == .connectionNotJudged)
  }

  func error(of body: () async throws -> Void) async -> CNPinnedSessionError? {
    await CNPinningSessionTests.error(of: body)
  }
}
#endif
