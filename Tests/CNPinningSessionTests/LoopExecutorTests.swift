// The session's network thread as an executor is the Linux transport's (libcurl's loop).
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CNPinnedSession.executor`: a task that prefers it runs on the session's network thread, its
/// requests are sent and resumed there without waking another thread, and neither the session's
/// end nor its last reference dropped on that thread stalls it.
@Suite("The session's network thread as a task executor", .serialized, .tags(.concurrency))
struct LoopExecutorTests {
  /// A keep-alive HTTP/1.1 server and a session with matching pins.
  static func fixture() throws -> (LocalTLSServer, CNPinnedSession) {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf, handler: { _ in .init(body: Data("ok".utf8)) }))
    let configuration = resolving(to: server, timeout: 60).trusting(.customAnchors([pki.root.certificate]))
    return (server, try CNPinnedSession(manager: try matchingPins(), configuration: configuration))
  }

  /// The kernel's name of the calling thread (the network thread's is the session's
  /// `threadName`; a thread started from it has the same name until it names itself).
  static var currentThreadName: String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
  }

  /// The calling thread's kernel thread ID ("PID/task/TID").
  static var currentThread: String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "unknown"
  }

  static func wakeUpSignals(of session: CNPinnedSession) throws -> Int {
    try #require(session.engine.transport as? CurlTransport).wakeUpSignals
  }

  @Test func aTaskThatPrefersItRunsAndIsResumedOnTheNetworkThread() async throws {
    let (server, session) = try Self.fixture()
    let leftovers = Leftovers(server)
    let url = server.url("/", hostName: "api.test")
    let (name, threads) = await withTaskExecutorPreference(session.executor) { () -> (String, [String]) in
      let name = Self.currentThreadName
      var threads = [Self.currentThread]
      for _ in 0..<20 {
        let status = try? await session.data(from: url).1.statusCode
        #expect(status == 200)
        threads.append(Self.currentThread)
      }
      return (name, threads)
    }
    #expect(name == session.threadName)
    #expect(Set(threads).count == 1)
    #expect(session.borrowedTransfers == 0)
    #expect(server.connections == 1)
    await leftovers.release()
  }

  /// Each request of a task on the network thread is queued and resumed by the thread itself:
  /// nothing signals it. (Before, a task resumed after the thread had decided to wait queued its
  /// next job into that wait, and signalled its own thread once per request.)
  @Test func itsRequestsSignalNoThread() async throws {
    let (server, session) = try Self.fixture()
    let leftovers = Leftovers(server)
    let url = server.url("/", hostName: "api.test")
    let signals = try await withTaskExecutorPreference(session.executor) { () throws -> Int in
      #expect(try await session.data(from: url).1.statusCode == 200)
      let before = try Self.wakeUpSignals(of: session)
      for _ in 0..<100 { #expect(try await session.data(from: url).1.statusCode == 200) }
      return try Self.wakeUpSignals(of: session) - before
    }
    #expect(signals == 0)
    await leftovers.release()
  }

  /// Tasks on the network thread and tasks on the shared threads (which drive an idle session
  /// themselves, or hand their requests to the network thread) share one session.
  @Test func tasksOnItAndOnTheSharedThreadsShareTheSession() async throws {
    let (server, session) = try Self.fixture()
    let leftovers = Leftovers(server)
    let url = server.url("/", hostName: "api.test")
    let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
      for index in 0..<8 {
        group.addTask(executorPreference: index.isMultiple(of: 2) ? session.executor : nil) {
          var statuses: [Int] = []
          for _ in 0..<50 { statuses.append(try await session.data(from: url).1.statusCode) }
          return statuses
        }
      }
      return try await group.reduce(into: []) { $0 += $1 }
    }
    #expect(statuses == Array(repeating: 200, count: 400))
    await leftovers.release()
  }

  /// `invalidateAndCancel()` from a task on the network thread returns (the loop ends once the
  /// task's job has returned), and the task goes on elsewhere from its next suspension.
  @Test func invalidatingTheSessionFromItsOwnThreadReturns() async throws {
    let (server, session) = try Self.fixture()
    let leftovers = Leftovers(server)
    let url = server.url("/", hostName: "api.test")
    let ended = Locked<(first: Int?, after: CNPinnedSessionError.Code?, moved: Bool)?>(nil)
    let task = Task(executorPreference: session.executor) {
      let first = try? await session.data(from: url).1.statusCode
      let networkThread = Self.currentThread
      session.invalidateAndCancel()
      let after = await error { _ = try await session.data(from: url) }?.code
      // A suspension the task cannot skip (a continuation resumed before the task has suspended
      // goes on where it is, as a yield may be).
      try? await Task.sleep(for: .milliseconds(10))
      ended.withLock { $0 = (first, after, Self.currentThread != networkThread) }
    }
    #expect(await eventually(within: 60) { ended.withLock { $0 != nil } })
    let result = try #require(ended.withLock { $0 })
    #expect(result.first == 200)
    #expect(result.after == .sessionInvalidated)
    #expect(result.moved)
    await task.value
    await leftovers.release()
  }

  /// The session's last reference, dropped by a task on its network thread, ends the session
  /// there: its thread ends and the task goes on elsewhere.
  @Test func theLastReferenceDroppedOnTheNetworkThreadEndsTheSession() async throws {
    var (server, session): (LocalTLSServer, CNPinnedSession?) = try Self.fixture()
    let leftovers = Leftovers(server)
    let url = server.url("/", hostName: "api.test")
    let threadName = session!.threadName
    let executor = session!.executor
    let held = Locked<CNPinnedSession?>(session)
    session = nil
    let ended = Locked<(status: Int?, moved: Bool)?>(nil)
    Task(executorPreference: executor) {
      let status = try? await held.withLock { $0 }!.data(from: url).1.statusCode
      #expect(Self.currentThreadName == threadName)
      let networkThread = Self.currentThread
      // The last reference goes here, on the network thread.
      held.withLock { $0 = nil }
      // A suspension the task cannot skip (a continuation resumed before the task has suspended
      // goes on where it is, as a yield may be).
      try? await Task.sleep(for: .milliseconds(10))
      ended.withLock { $0 = (status, Self.currentThread != networkThread) }
    }
    #expect(await eventually(within: 60) { ended.withLock { $0 != nil } })
    #expect(ended.withLock { $0?.status } == 200)
    #expect(ended.withLock { $0?.moved } == true)
    #expect(await eventually(within: 60) { HostileServerTests.threads(named: [threadName]) == 0 })
    await leftovers.release()
  }

  /// After the session's end, a task that prefers its executor runs on the global executor.
  @Test func aTaskMadeAfterTheSessionsEndRunsElsewhere() async throws {
    let (server, session) = try Self.fixture()
    let leftovers = Leftovers(server)
    session.invalidateAndCancel()
    // Its thread has ended: the task runs and ends (waited for with a bound: a job left in the
    // ended loop's queue would never run).
    let ran = Locked(false)
    Task(executorPreference: session.executor) { ran.withLock { $0 = true } }
    #expect(await eventually(within: 60) { ran.withLock { $0 } })
    #expect(await eventually(within: 60) { HostileServerTests.threads(named: [session.threadName]) == 0 })
    await leftovers.release()
  }
}
#endif
