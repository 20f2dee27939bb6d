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

/// How the Apple transport takes a response as it arrives (issue 31, items 5, 6 and 14: bodies
/// were collected whole and capped only at the end, downloads checked once on disk, and a resent
/// upload had no body), driven by real URLSessions against a loopback server.
@Suite struct TaskBodyDelegateTests {
  static let big = Data.pattern(24 << 20, multiplier: 31)

  /// Made once: these servers speak plain HTTP, and key generation would only load the pool.
  static let identity = Result { try TestPKI(leaf: "web.test").leaf }

  static func server() throws -> LocalTLSServer {
    var setup = LocalTLSServer.Configuration(identity: try identity.get()) { request in
      switch request.target {
      case "/big": return .init(body: Self.big)
      case "/moved": return .redirect(to: "/small")
      default: return .text("small")
      }
    }
    setup.behavior = .plainHTTP
    return try LocalTLSServer.start(setup)
  }

  /// Runs `path` through a delegate with `destination` and `limit`. swift-corelibs-foundation
  /// sends data callbacks to the session's delegate only, so the delegate is the session's here;
  /// on Apple platforms it is the task's.
  static func run(
    _ server: LocalTLSServer, _ path: String, _ destination: BodyDestination, limit: Int,
    progress: CNTransferProgress? = nil
  ) async throws(CNPinnedSessionError) -> TransferOutcome {
    let delegate = TaskBodyDelegate(
      plan: .init(host: "127.0.0.1", destination: destination, limit: limit, upload: nil, progress: progress))
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    return try await delegate.run(URLRequest(url: server.url(path)), in: session).0.get {
      .transferFailed(host: "127.0.0.1", reason: "\($0)")
    }
  }

  @Test func aBodyInMemoryIsWholeAndItsLimitCountedAsItArrives() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let whole = try await Self.run(server, "/big", .memory, limit: 32 << 20)
    #expect(whole.response.statusCode == 200 && whole.body == Self.big)
    let progress = CNTransferProgress()
    await #expect(throws: CNPinnedSessionError.responseTooLarge(host: "127.0.0.1", limit: 1 << 20)) {
      _ = try await Self.run(server, "/big", .memory, limit: 1 << 20, progress: progress)
    }
    // Stopped when the limit was passed, not after the whole 24 MiB.
    #expect(progress.receivedBytes < 4 << 20, "\(progress.receivedBytes) bytes taken before the limit stopped it")
  }

  @Test func aDownloadIsWrittenAsItArrivesAndStopsAtItsLimit() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for (name, limit) in [("whole", 32 << 20), ("limited", 2 << 20)] {
      let path = directory.appendingPathComponent(name).path
      #expect(FileManager.default.createFile(atPath: path, contents: nil))
      let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      let outcome: Result<TransferOutcome, CNPinnedSessionError>
      do {
        outcome = .success(try await Self.run(server, "/big", .file(file), limit: limit))
      } catch {
        outcome = .failure(error)
      }
      try file.close()
      let written = try Data(contentsOf: URL(fileURLWithPath: path))
      if name == "whole" {
        #expect(written == Self.big)
        #expect((try? outcome.get())?.body.isEmpty == true, "a download's body is in its file, not in memory")
      } else {
        #expect(throws: CNPinnedSessionError.responseTooLarge(host: "127.0.0.1", limit: limit)) { try outcome.get() }
        #expect(written.count <= limit, "\(written.count) bytes on disk past a \(limit)-byte limit")
      }
    }
  }

  /// A request cancelled before its task started ends (cancelled), rather than waiting forever.
  @Test func aRequestCancelledBeforeItStartsEnds() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let ended = Locked(false)
    let request = Task {
      defer { ended.withLock { $0 = true } }
      // Starts only once cancelled (the cancel follows at once), so the request begins cancelled.
      while !Task.isCancelled { await Task.yield() }
      return try await Self.run(server, "/big", .memory, limit: 32 << 20)
    }
    request.cancel()
    // A liveness bound, not a timing one: in the full suite the shared pool can be busy for
    // seconds (RSA key generation in other suites); without the fix this waited forever.
    #expect(await eventually(within: 60) { ended.withLock { $0 } })
    await #expect(throws: CNPinnedSessionError.cancelled) { _ = try await request.value }
  }

  @Test func redirectsComeBackAndAFileUploadCanBeSentAgain() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let redirect = try await Self.run(server, "/moved", .memory, limit: 1 << 20)
    #expect(redirect.response.statusCode == 302 && redirect.response.value(forHTTPHeaderField: "Location") == "/small")

    let file = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try Data("the upload".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let stream = try #require(UploadSource.file(file).reopened())
    stream.open()
    defer { stream.close() }
    var buffer = [UInt8](repeating: 0, count: 64)
    #expect(String(decoding: buffer[..<stream.read(&buffer, maxLength: 64)], as: UTF8.self) == "the upload")
    #expect(
      UploadSource.stream(.init(stream: InputStream(data: Data()))).reopened() == nil, "a caller's stream cannot be read twice")
    let sequence = ChunkedUpload(AsyncStream<Data> { $0.finish() }, length: nil)
    #expect(UploadSource.chunks(sequence).reopened() == nil, "nor a sequence")
  }

  /// URLSession asks for the body again to answer a 401 or 407, or to retry on a new
  /// connection; a caller's stream cannot give it, and the task fails saying so, as a redirect
  /// of a streamed request does (before, it ended with URLSession's own error, naming neither).
  @Test func aStreamAskedForAgainFailsWithAnErrorThatSaysSo() async throws {
    var setup = LocalTLSServer.Configuration(identity: try Self.identity.get()) { _ in .init(body: Data(), delay: 60) }
    setup.behavior = .plainHTTP
    let server = try LocalTLSServer.start(setup)
    defer { server.stop() }
    let delegate = TaskBodyDelegate(
      plan: .init(
        host: "127.0.0.1", destination: .memory, limit: 1 << 20,
        upload: .stream(.init(stream: InputStream(data: Data("once".utf8)))), progress: nil))
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    defer { session.invalidateAndCancel() }
    var request = URLRequest(url: server.url("/upload"))
    request.httpMethod = "POST"
    request.httpBody = Data("once".utf8)
    async let outcome = delegate.run(request, in: session)
    // What URLSession does when it must send the body again, once the task is under way (up to
    // 20 s of polls: a full suite on two cores can keep URLSession's queue from starting it for seconds).
    var running: URLSessionTask?
    for _ in 0..<2000 where running == nil {
      running = await withCheckedContinuation { done in session.getAllTasks { done.resume(returning: $0.first) } }
      if running == nil { try await Task.sleep(for: .milliseconds(10)) }
    }
    let task = try #require(running, "the task never started")
    let handedBack = Locked<InputStream??>(nil)
    delegate.urlSession(session, task: task, needNewBodyStream: { stream in handedBack.withLock { $0 = .some(stream) } })
    #expect(handedBack.withLock { $0 } == .some(nil), "no stream is handed back")
    let ended = await outcome.0
    let failure = #expect(throws: CNPinnedSessionError.self) {
      _ = try ended.get { .transferFailed(host: "127.0.0.1", reason: "URLSession's own: \($0)") }
    }
    let reason = try #require(failure?.reason(ifCode: .unsupportedRequest), "got \(String(describing: failure))")
    #expect(reason.contains("httpBodyStream") && reason.contains("read only once"))
  }
}
#endif
