@_spi(Locking) import CNPinning
import Foundation
import Testing

@testable import CNPinningSession

/// A request body taken from a sequence (`ChunkedUpload`), as both platforms' transports read
/// it: held to its stated length, and keeping nothing alive once it has ended. Platform-neutral.
@Suite struct ChunkedUploadTests {
  static func chunks(_ sizes: [Int]) -> AsyncStream<Data> {
    AsyncStream { continuation in
      for size in sizes { continuation.yield(Data(repeating: 7, count: size)) }
      continuation.finish()
    }
  }

  /// Everything `upload` hands on, or the failure it ends with.
  static func drain(_ upload: ChunkedUpload) async -> Result<[Int], CNPinnedSessionError> {
    var sizes: [Int] = []
    do throws(CNPinnedSessionError) {
      while let chunk = try await upload.next(host: "api.test") { sizes.append(chunk.count) }
      return .success(sizes)
    } catch {
      return .failure(error)
    }
  }

  @Test func aSequenceOfItsStatedLengthIsHandedOnWhole() async {
    let upload = ChunkedUpload(Self.chunks([300, 0, 700]), length: 1000)
    #expect(await Self.drain(upload) == .success([300, 700]))
    #expect(upload.failure == nil)
  }

  @Test func aSequenceThatEndsShortOfItsLengthFailsNamingBoth() async throws {
    let upload = ChunkedUpload(Self.chunks([100, 200]), length: 1000)
    guard case .failure(let failure) = await Self.drain(upload) else {
      Issue.record("a short body was taken as whole")
      return
    }
    let reason = try #require((failure.code == .invalidArgument ? failure.reason : nil), "got \(failure)")
    #expect(reason.contains("after 300 bytes") && reason.contains("1000"), "\(reason)")
  }

  /// The chunk that completes the length is withheld until the sequence's end is known: a
  /// transport sends nothing past the length, so a longer sequence would go unseen.
  @Test func aSequenceThatGoesOnPastItsLengthFailsBeforeTheLastChunkIsHandedOn() async throws {
    for sizes in [[600, 600], [400, 600, 1]] {
      let upload = ChunkedUpload(Self.chunks(sizes), length: 1000)
      var handed = 0
      var failure: CNPinnedSessionError?
      do throws(CNPinnedSessionError) {
        while let chunk = try await upload.next(host: "api.test") { handed += chunk.count }
      } catch {
        failure = error
      }
      let reason = try #require(
        (failure?.code == .invalidArgument ? failure?.reason : nil), "\(sizes): got \(String(describing: failure))")
      #expect(reason.contains("goes on past") && reason.contains("1000"), "\(reason)")
      #expect(handed < 1000, "\(sizes): \(handed) bytes were handed on before the failure")
    }
  }

  @Test func whoeverIsToldOfAFailureIsToldWhichFailure() async {
    let upload = ChunkedUpload(Self.chunks([10]), length: 20)
    let told = Locked<[CNPinnedSessionError]>([])
    upload.onFailure { failure in told.withLock { $0.append(failure) } }
    _ = await Self.drain(upload)
    // Registered after the failure: told at once.
    upload.onFailure { failure in told.withLock { $0.append(failure) } }
    let failures = told.withLock { $0 }
    #expect(failures.count == 2 && failures.allSatisfy { $0 == upload.failure })
  }

  /// A sequence whose own error is a `CNPinnedSessionError` (a body piped from another pinned
  /// response, say) fails the upload like any other error: recorded, and told to whoever waits,
  /// so that the Apple transport cancels its task rather than leave the body open.
  @Test func aSequenceThatThrowsASessionErrorIsRecordedAndToldLikeAnyOther() async throws {
    let upstream = CNPinnedSessionError.connectionLost(host: "upstream.test", reason: "reset")
    let sequence = AsyncThrowingStream<Data, Error> { continuation in
      continuation.yield(Data(repeating: 1, count: 10))
      continuation.finish(throwing: upstream)
    }
    let upload = ChunkedUpload(sequence, length: nil)
    let told = Locked<[CNPinnedSessionError]>([])
    upload.onFailure { failure in told.withLock { $0.append(failure) } }
    guard case .failure(let failure) = await Self.drain(upload) else {
      Issue.record("a failed sequence ended whole")
      return
    }
    #expect(upload.failure == failure, "the failure was thrown but not recorded")
    #expect(told.withLock { $0 } == [failure], "whoever waited was not told")
    let reason = try #require(failure.code == .transferFailed ? failure.reason : nil, "got \(failure)")
    #expect(reason.contains("upstream.test"), "\(reason)")
  }

  /// The Apple transport registers its task's cancellation; an upload kept for its request's
  /// life must not keep what it would act on alive once the sequence has ended whole.
  @Test func aSequenceThatEndsWholeLetsGoOfWhoeverWaitedForItsFailure() async {
    final class Watcher: Sendable {}
    let upload = ChunkedUpload(Self.chunks([10, 10]), length: 20)
    weak var released: Watcher?
    do {
      let watcher = Watcher()
      released = watcher
      upload.onFailure { _ in _ = watcher }
    }
    #expect(released != nil, "the upload should hold its waiter while the sequence runs")
    #expect(await Self.drain(upload) == .success([10, 10]))
    #expect(released == nil, "the upload kept its waiter after the sequence ended whole")
  }

  /// What the Apple transport keeps (the write end of a failed body's stream pair, which
  /// releasing would close, ending the body as if whole: issue 53, M6) lives as long as the
  /// upload, which lives as long as its request.
  @Test func whatIsKeptLivesAsLongAsTheUpload() {
    final class Held: Sendable {}
    weak var kept: Held?
    var upload: ChunkedUpload? = ChunkedUpload(AsyncStream<Data> { $0.finish() }, length: nil)
    do {
      let held = Held()
      kept = held
      upload?.keep(held)
    }
    #expect(kept != nil, "kept by the upload")
    upload = nil
    #expect(kept == nil, "released with it")
  }
}
