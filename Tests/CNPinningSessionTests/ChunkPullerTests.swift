// Uses the suite's `eventually`, which only the Linux build's support files have.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
import Foundation
import Testing

/// The pulls behind URLSession's body stream on Apple platforms (issue 53, L2), on Linux: one
/// chunk per `take()`, nothing ahead of it, and a writer waiting on a producer that never
/// answers let go when the request's task ends.
@Suite("Chunk puller")
struct ChunkPullerTests {
  /// Runs `body` on a thread of its own (never the cooperative pool, as `take()` requires) and
  /// returns its result, or nil when it has not returned within `seconds`. Awaits, never blocks
  /// a thread of the pool: the puller's task needs one (a blocking wait here starved it when
  /// two tests waited at once on this machine's two pool threads).
  /// `seconds` is a liveness bound, not a timing one: in the full suite beside a build the pool the
  /// puller's task needs was busy past 10 s (twice, in two tests).
  static func onThread<T: Sendable>(within seconds: Double = 60, _ body: @escaping @Sendable () -> T) async -> T? {
    let result = Locked<T?>(nil)
    // The body runs outside the lock: holding it while `take()` blocks kept the pool threads
    // polling below waiting on the lock, so the puller's task never ran (a hang seen once in 50
    // runs, with two of these at once on this machine's two pool threads).
    let thread = Thread {
      let value = body()
      result.withLock { $0 = value }
    }
    thread.start()
    _ = await eventually(within: seconds) { result.withLock { $0 != nil } }
    return result.withLock { $0 }
  }

  @Test func eachTakePullsOneChunkAndNothingIsPulledAhead() async throws {
    let pulls = Locked(0)
    let upload = ChunkedUpload(CountingChunks(pulls: pulls), length: nil)
    let puller = upload.puller(host: "api.test")
    try await Task.sleep(for: .milliseconds(50))
    #expect(pulls.withLock { $0 } == 0)
    let first = await Self.onThread { puller.take() }
    #expect((try? first?.get()) == Data("1".utf8))
    #expect(pulls.withLock { $0 } == 1)
    let rest = await Self.onThread { [puller.take(), puller.take(), puller.take()] }
    #expect(rest?.map { try? $0.get() } == [Data("2".utf8), Data("3".utf8), .some(nil)])
    #expect(pulls.withLock { $0 } == 4)  // the fourth pull found the end
  }

  /// The writer pulls nothing until URLSession opens the body stream (issue 53, L1), and a task
  /// that ends first (a server refused at its handshake) has pulled nothing at all.
  @Test func nothingIsPulledBeforeTheReaderStartsNorForATaskThatEndsFirst() async throws {
    let pulls = Locked(0)
    let opened = Locked(false)
    let upload = ChunkedUpload(CountingChunks(pulls: pulls), length: nil)
    let puller = upload.puller(host: "api.test")
    let first = Task { await Self.onThread { puller.wait(until: { opened.withLock { $0 } }) ? puller.take() : nil } }
    try await Task.sleep(for: .milliseconds(100))
    #expect(pulls.withLock { $0 } == 0)
    opened.withLock { $0 = true }
    #expect((try? await first.value??.get()) == Data("1".utf8))

    let refused = ChunkedUpload(CountingChunks(pulls: pulls), length: nil)
    let never = refused.puller(host: "rogue.test")
    let waiting = Task { await Self.onThread { never.wait(until: { false }) } }
    try await Task.sleep(for: .milliseconds(50))
    refused.taskEnded()
    #expect(await waiting.value == false)
    #expect(pulls.withLock { $0 } == 1)
  }

  @Test func aWriterWaitingOnAProducerThatNeverAnswersIsLetGoWhenTheTaskEnds() async throws {
    let cancelled = Locked(false)
    let upload = ChunkedUpload(SilentChunks(cancelled: cancelled), length: nil)
    let puller = upload.puller(host: "api.test")
    let ended = Locked<Result<Data?, CNPinnedSessionError>?>(nil)
    let waiting = Thread {
      let result = puller.take()
      ended.withLock { $0 = result }
    }
    waiting.start()
    try await Task.sleep(for: .milliseconds(100))
    #expect(ended.withLock { $0 } == nil)  // still waiting for the producer
    upload.taskEnded()
    #expect(await eventually(within: 10) { ended.withLock { $0 } != nil })
    #expect(ended.withLock { $0 } == .failure(.cancelled))
    // The pulling task was cancelled too: the producer saw it and let go of the request.
    #expect(await eventually(within: 60) { cancelled.withLock { $0 } })
    // Later takes return at once.
    #expect(await Self.onThread(within: 2) { puller.take() } == .failure(.cancelled))
  }

  /// Review N6: when leasing a URLSession fails before a task was made (the session invalidated
  /// meanwhile), no delegate ends the upload, and the writer waiting for URLSession to open the
  /// body stream polled for ever; the lease's failure lets it go.
  @Test func aWriterIsLetGoWhenNoTaskWasMade() async throws {
    let upload = ChunkedUpload(CountingChunks(pulls: Locked(0)), length: nil)
    let puller = upload.puller(host: "api.test")
    let waiting = Task { await Self.onThread { puller.wait(until: { false }) } }
    try await Task.sleep(for: .milliseconds(50))
    let failure = URLSessionHop.leaseFailure(
      SessionRotationClosed(), sessionClosed: true, host: "api.test", upload: .chunks(upload))
    #expect(failure == .sessionInvalidated)
    #expect(await waiting.value == false)
  }

  /// The writer's loop (issue 53, item 3: shared, where it was Apple-only): chunks in order,
  /// closed when whole or when the reader closed its end, left open when the sequence failed.
  @Test func theWriterDrainsInOrderAndClosesOnlyAWholeOrAbandonedBody() async {
    func drain(_ chunks: some AsyncSequence<Data, Error> & Sendable, acceptingWrites accepted: Int = .max) async -> (
      ended: Bool, written: [Data], closed: Bool
    )? {
      let upload = ChunkedUpload(chunks, length: nil)
      let puller = upload.puller(host: "api.test")
      return await Self.onThread {
        var written: [Data] = []
        var closed = false
        let ended = puller.drain(
          until: { true },
          write: { chunk in
            guard written.count < accepted else { return false }
            written.append(chunk)
            return true
          }, close: { closed = true })
        return (ended, written, closed)
      }
    }
    let pulls = Locked(0)
    let whole = await drain(CountingChunks(pulls: pulls))
    #expect(whole?.ended == true && whole?.closed == true)
    #expect(whole?.written == ["1", "2", "3"].map { Data($0.utf8) })
    let abandoned = await drain(CountingChunks(pulls: Locked(0)), acceptingWrites: 1)
    #expect(abandoned?.ended == true && abandoned?.closed == true && abandoned?.written.count == 1)
    let failed = await drain(FailingChunks())
    #expect(failed?.ended == false && failed?.closed == false)
    // All of a chunk goes out, however little the stream takes at a time; a stream taking
    // nothing ends the write.
    var taken: [UInt8] = []
    #expect(
      ChunkPuller.writeAll(Data("abcdefgh".utf8)) { bytes, count in
        let step = min(3, count)
        taken += UnsafeBufferPointer(start: bytes, count: step)
        return step
      })
    #expect(taken == Array("abcdefgh".utf8))
    #expect(!ChunkPuller.writeAll(Data("abc".utf8)) { _, _ in 0 })
  }

  @Test func aFailedSequenceIsTakenAsItsFailure() async {
    let upload = ChunkedUpload(FailingChunks(), length: nil)
    let result = await Self.onThread { upload.puller(host: "api.test").take() }
    guard case .failure(let error)? = result else {
      Issue.record("expected the sequence's failure, got \(String(describing: result))")
      return
    }
    #expect(error.code == .transferFailed)
  }
}

/// "1", "2", "3", counting each pull of the iterator.
struct CountingChunks: AsyncSequence, Sendable {
  let pulls: Locked<Int>
  struct Iterator: AsyncIteratorProtocol {
    let pulls: Locked<Int>
    var index = 0
    mutating func next() async throws -> Data? {
      pulls.withLock { $0 += 1 }
      defer { index += 1 }
      return index < 3 ? Data(String(index + 1).utf8) : nil
    }
  }
  func makeAsyncIterator() -> Iterator { Iterator(pulls: pulls) }
}

/// A producer that never answers until its task is cancelled, and notes that it was.
struct SilentChunks: AsyncSequence, Sendable {
  let cancelled: Locked<Bool>
  struct Iterator: AsyncIteratorProtocol {
    let cancelled: Locked<Bool>
    mutating func next() async throws -> Data? {
      // Bounded: a test that forgot to cancel ends in 60 s rather than never.
      for _ in 0..<600 where !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
      cancelled.withLock { $0 = Task.isCancelled }
      throw CancellationError()
    }
  }
  func makeAsyncIterator() -> Iterator { Iterator(cancelled: cancelled) }
}

/// A producer that fails at once.
struct FailingChunks: AsyncSequence, Sendable {
  struct Broken: Error {}
  struct Iterator: AsyncIteratorProtocol {
    mutating func next() async throws -> Data? { throw Broken() }
  }
  func makeAsyncIterator() -> Iterator { Iterator() }
}
#endif
