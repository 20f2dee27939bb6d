import CNPinning
import Foundation
import Testing

@testable import CNPinningSession
@testable import CNPinningSessionCore

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningSessionLinux
#endif

/// How a streamed body on Apple platforms (`URLSession.bytes(for:delegate:)`) reaches the reader:
/// pulled from the byte sequence only while the channel has room (issue 31, item 5: the body
/// was collected whole, capped at 32 MiB, and server-sent events never arrived).
@Suite struct ChannelFillTests {
  /// `count` bytes made on demand, counting how many were pulled; `stallAfter` bytes in, it waits
  /// (until cancelled) as a server that sends no more would.
  struct Source: AsyncSequence, Sendable {
    typealias Element = UInt8
    let count: Int
    var stallAfter = Int.max
    let pulled = Locked(0)

    struct AsyncIterator: AsyncIteratorProtocol {
      let source: Source
      var next = 0
      mutating func next() async throws -> UInt8? {
        guard next < source.count else { return nil }
        if next == source.stallAfter { try await Task.sleep(for: .seconds(3600)) }
        defer { next += 1 }
        source.pulled.withLock { $0 += 1 }
        return UInt8(truncatingIfNeeded: next &* 7)
      }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
    var bytes: Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }) }
  }

  /// Whether `condition` holds within 5 s (checked every 10 ms). Here rather than the Linux-only
  /// support file, so that these tests run on Apple platforms too.
  static func within5Seconds(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<500 {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
  }

  /// Starts filling `channel` from `source` in a task that the channel's reader can cancel.
  static func fill(_ channel: ResponseBodyChannel, from source: Source, limit: Int = .max) -> Task<Void, Never> {
    let filler = Locked<Task<Void, Never>?>(nil)
    let task = Task {
      await channel.fill(
        from: source, limit: limit, host: "h", progress: nil, stopFilling: { filler.withLock { $0 }?.cancel() },
        translate: { .transferFailed(host: "h", reason: "\($0)") })
    }
    filler.withLock { $0 = task }
    return task
  }

  @Test func aReaderThatStopsStopsThePull() async throws {
    let source = Source(count: 3 << 20)
    let channel = ResponseBodyChannel()
    let filler = Self.fill(channel, from: source)
    // Nobody reads: the pull stops once the channel is full (1 MiB, and one chunk being offered).
    #expect(await Self.within5Seconds { source.pulled.withLock { $0 } >= ResponseBodyChannel.capacity })
    try await Task.sleep(for: .milliseconds(200))
    let bound = ResponseBodyChannel.capacity + 2 * ResponseBodyChannel.fillChunkSize
    #expect(source.pulled.withLock { $0 } <= bound, "\(source.pulled.withLock { $0 }) bytes pulled with no reader")
    var body = Data()
    while let chunk = try await channel.next() { body.append(chunk) }
    #expect(body == source.bytes)
    await filler.value
  }

  @Test func theLimitIsCountedAsBytesArrive() async throws {
    let source = Source(count: 4 << 20)
    let channel = ResponseBodyChannel()
    let filler = Self.fill(channel, from: source, limit: 1 << 20)
    var taken = 0
    await #expect(throws: CNPinnedSessionError.responseTooLarge(host: "h", limit: 1 << 20)) {
      while let chunk = try await channel.next() { taken += chunk.count }
    }
    await filler.value
    #expect(taken <= 1 << 20)
    #expect(source.pulled.withLock { $0 } <= (1 << 20) + ResponseBodyChannel.fillChunkSize)
  }

  /// A reader that gives up while the server sends nothing ends the pull at once.
  @Test func stoppingEndsAPullWaitingOnTheNetwork() async throws {
    let source = Source(count: 1 << 20, stallAfter: 1000)
    let channel = ResponseBodyChannel()
    let filler = Self.fill(channel, from: source)
    #expect(await Self.within5Seconds { source.pulled.withLock { $0 } == 1000 })
    channel.stop(.cancelled)
    await filler.value
    await #expect(throws: CNPinnedSessionError.cancelled) { _ = try await channel.next() }
  }
}
