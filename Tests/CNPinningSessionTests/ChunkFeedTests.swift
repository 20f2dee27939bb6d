@_spi(Locking) import CNPinning
import Foundation
import Testing

@testable import CNPinningSession

/// How a streamed body on Apple platforms reaches the reader: each chunk a URLSession data
/// delegate is handed goes on to the reader as it arrives, whole, and the task is suspended while
/// the reader has a full channel (`ChunkFeed`). Before, bytes were pulled one at a time from
/// `URLSession.AsyncBytes` and handed on 64 KiB at a time: a stream of 200 B/s reached the reader
/// after five minutes. Platform-neutral: these run on Apple platforms too.
@Suite struct ChunkFeedTests {
  /// A source as URLSession's task is one: it pushes chunks, and suspends and resumes when told,
  /// nestably (`-suspend` and `-resume` are nestable, NSURLSession.h: two suspends need two
  /// resumes), and it may still deliver data received while suspending.
  final class Source: Sendable {
    private let state = Locked<(suspends: Int, cancelled: Bool, pauses: Int)>((0, false, 0))
    var paused: Bool { state.withLock { $0.suspends > 0 } }
    /// Suspends not yet resumed.
    var suspends: Int { state.withLock { $0.suspends } }
    var cancelled: Bool { state.withLock { $0.cancelled } }
    var pauses: Int { state.withLock { $0.pauses } }

    func feed(into channel: ResponseBodyChannel, limit: Int = .max) -> ChunkFeed {
      ChunkFeed(
        into: channel, limit: limit, host: "h", progress: nil,
        pause: {
          self.state.withLock {
            $0.suspends += 1
            $0.pauses += 1
          }
        },
        resume: { self.state.withLock { $0.suspends = max(0, $0.suspends - 1) } },
        cancel: { self.state.withLock { $0.cancelled = true } })
    }
  }

  /// Whether `condition` holds within 5 s (checked every 5 ms).
  static func within5Seconds(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
  }

  /// Ten-byte chunks 20 ms apart, as a server-sent-events stream trickles: each reaches the
  /// reader before the next one arrives.
  @Test func eachChunkReachesTheReaderBeforeTheNextArrives() async throws {
    let channel = ResponseBodyChannel()
    let feed = Source().feed(into: channel)
    let read = Locked<[Data]>([])
    let reader = Task {
      while let chunk = try await channel.next() { read.withLock { $0.append(chunk) } }
    }
    for index in 0..<20 {
      let chunk = Data(repeating: UInt8(index), count: 10)
      #expect(feed.receive(chunk))
      let arrived = await Self.within5Seconds { read.withLock { $0.count } == index + 1 }
      #expect(arrived, "chunk \(index) did not reach the reader before the next was sent")
      #expect(read.withLock { $0.last } == chunk, "chunks are handed on whole, as they came")
      try await Task.sleep(for: .milliseconds(20))
    }
    feed.finish(nil)
    try await reader.value
    #expect(read.withLock { $0.count } == 20)
  }

  /// Nobody reads: the source is paused once the channel holds its capacity, and resumed when the
  /// reader has taken half; the whole body then arrives.
  @Test func aFullChannelPausesTheSourceUntilTheReaderMakesRoom() async throws {
    let channel = ResponseBodyChannel()
    let source = Source()
    let feed = source.feed(into: channel)
    let chunk = Data(repeating: 7, count: 64 << 10)
    var sent = 0
    // As URLSession does, the source sends while it is not paused (and a few in flight after).
    while !source.paused && sent < 64 {
      #expect(feed.receive(chunk))
      sent += 1
    }
    #expect(source.paused && source.pauses == 1)
    #expect(sent * chunk.count == ResponseBodyChannel.capacity, "paused at \(sent) chunks")
    var received = 0
    while received < ResponseBodyChannel.capacity / 2 + chunk.count {
      received += try await channel.next()?.count ?? 0
    }
    #expect(!source.paused, "resumed once half was taken")
    feed.finish(nil)
    while let next = try await channel.next() { received += next.count }
    #expect(received == sent * chunk.count)
  }

  /// Two chunks that were on their way arrive after each suspend, as URLSession may deliver data
  /// received while suspending (review H2): the task is suspended once, so the one resume at half
  /// lets it go on and the whole body arrives. Before, each chunk that found the channel full
  /// suspended again, and one resume left the task suspended for ever (no timeout applies to a
  /// suspended task).
  @Test func chunksArrivingWhileSuspendedDoNotNestTheSuspend() async throws {
    let channel = ResponseBodyChannel()
    let source = Source()
    let feed = source.feed(into: channel)
    let chunk = Data(repeating: 3, count: 64 << 10)
    let total = 64  // 4 MiB: the channel fills four times over
    var (sent, received) = (0, 0)
    // One task plays both sides, so the order is the same every run: the source sends while the
    // task is not suspended, and two more after a suspend, as URLSession may; the reader reads
    // only while it is suspended, and stops when nothing is left to read.
    for _ in 0..<(4 * total) where sent < total {
      if !source.paused {
        feed.receive(chunk)
        sent += 1
        if source.paused {
          for _ in 0..<2 where sent < total {
            feed.receive(chunk)
            sent += 1
          }
        }
      } else if received < sent * chunk.count {
        received += try await channel.next()?.count ?? 0
      } else {
        break  // suspended with nothing left to read: nobody will resume it
      }
    }
    #expect(sent == total, "the task stayed suspended after \(sent) chunks: \(source.suspends) suspends not resumed")
    #expect(source.pauses >= 4, "the channel filled \(source.pauses) times")
    feed.finish(nil)
    while let next = try await channel.next() { received += next.count }
    #expect(received == sent * chunk.count)
  }

  /// A wake-up that comes before the source was told to pause leaves it running.
  @Test func roomMadeBeforeThePauseIsNotLost() async throws {
    let channel = ResponseBodyChannel()
    let source = Source()
    let feed = source.feed(into: channel)
    let chunk = Data(repeating: 1, count: 64 << 10)
    for _ in 0..<(ResponseBodyChannel.capacity / chunk.count) { feed.receive(chunk) }
    #expect(source.paused)
    for _ in 0..<(ResponseBodyChannel.capacity / chunk.count / 2 + 1) { _ = try await channel.next() }
    #expect(!source.paused)
    feed.finish(nil)
  }

  @Test func theLimitIsCountedAsChunksArrive() async throws {
    let channel = ResponseBodyChannel()
    let source = Source()
    let feed = source.feed(into: channel, limit: 100)
    #expect(feed.receive(Data(count: 60)))
    #expect(!feed.receive(Data(count: 60)))
    #expect(source.cancelled)
    #expect(try await channel.next()?.count == 60)
    await #expect(throws: CNPinnedSessionError.responseTooLarge(host: "h", limit: 100)) { _ = try await channel.next() }
  }

  /// A reader that stops cancels the source, and later chunks are dropped.
  @Test func aReaderThatStopsCancelsTheSource() async throws {
    let channel = ResponseBodyChannel()
    let source = Source()
    let feed = source.feed(into: channel)
    #expect(feed.receive(Data(count: 10)))
    channel.stop(.cancelled)
    #expect(source.cancelled)
    #expect(!feed.receive(Data(count: 10)))
    #expect(try await channel.next()?.count == 10, "what arrived before the stop, and nothing after")
    await #expect(throws: CNPinnedSessionError.cancelled) { _ = try await channel.next() }
  }
}
