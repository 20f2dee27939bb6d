import CNPinning
import Foundation
import Testing

/// The bounds of the folder failure-report uploads wait in (issue 54, item 2): count, bytes,
/// tries and age, every write whole, the oldest dropped first.
@Suite("Kept uploads")
struct UploadQueueTests {
  static func queue() -> UploadQueue {
    UploadQueue(directory: FileManager.default.temporaryDirectory.appendingPathComponent("uploads-\(UUID().uuidString)"))
  }

  static func names(_ queue: UploadQueue) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: queue.directory.path)) ?? []).sorted()
  }

  let collector = URL(string: "https://reports.test/collect")!

  @Test func atMostAHundredUploadsAreKeptAndTheOldestGoFirst() throws {
    let queue = Self.queue()
    defer { try? FileManager.default.removeItem(at: queue.directory) }
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    var added: [String] = []
    for index in 0..<105 {
      added.append(try #require(queue.add(Data("{\"n\": \(index)}".utf8), to: collector, at: start + Double(index))))
    }
    #expect(Self.names(queue) == Array(added.suffix(100)))
    // No temporary files are left beside them: each write is whole.
    #expect(Self.names(queue).allSatisfy { $0.hasSuffix(".upload.json") })
  }

  /// A queue's clock far in the future names its file without trapping (the name's nanoseconds
  /// are bounded), and the upload is kept; one at a time JSON cannot write is not kept.
  @Test func anUploadAtAnyTimeIsKeptOrRefusedWithoutATrap() throws {
    let queue = Self.queue()
    defer { try? FileManager.default.removeItem(at: queue.directory) }
    for seconds in [1e300, -1] {
      #expect(queue.add(Data("{}".utf8), to: collector, at: Date(timeIntervalSince1970: seconds)) != nil, "\(seconds)")
    }
    for seconds in [TimeInterval.infinity, .nan] {
      #expect(queue.add(Data("{}".utf8), to: collector, at: Date(timeIntervalSince1970: seconds)) == nil, "\(seconds)")
    }
    #expect(Self.names(queue).count == 2)
  }

  @Test func atMostOneMebibyteIsKept() throws {
    let queue = Self.queue()
    defer { try? FileManager.default.removeItem(at: queue.directory) }
    let body = Data(repeating: 0x20, count: 300_000)
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let names = try (0..<4).map { try #require(queue.add(body, to: collector, at: start + Double($0))) }
    // Each file holds the body in base64 (400 KB): two fit, the two oldest went.
    #expect(Self.names(queue) == Array(names.suffix(2)))
    // A body that cannot fit at all is not kept, and nothing is dropped for it.
    #expect(queue.add(Data(repeating: 0, count: 1 << 20), to: collector) == nil)
    #expect(Self.names(queue).count == 2)
  }

  @Test func retriesBackOffAndStopAfterTenTriesOrSevenDays() throws {
    #expect(
      (1...10).map { UploadRetryPolicy.delay(afterAttempts: $0) } == [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 21600])
    let queue = Self.queue()
    defer { try? FileManager.default.removeItem(at: queue.directory) }
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    var now = start
    let name = try #require(queue.add(Data("{}".utf8), to: collector, at: start))
    #expect(queue.takeDue(at: now).isEmpty)  // being sent: not taken twice
    for attempt in 1..<UploadRetryPolicy.maximumAttempts {
      queue.failed(name, retryable: true, at: now)
      #expect(queue.takeDue(at: now).isEmpty, "due again at once after attempt \(attempt)")
      now = try #require(queue.nextDue())
      #expect(queue.takeDue(at: now).map(\.name) == [name])
    }
    queue.failed(name, retryable: true, at: now)
    #expect(Self.names(queue).isEmpty, "kept after \(UploadRetryPolicy.maximumAttempts) tries")

    let old = try #require(queue.add(Data("{}".utf8), to: collector, at: start))
    queue.failed(old, retryable: true, at: start + UploadRetryPolicy.maximumAge)
    #expect(Self.names(queue).isEmpty, "kept after seven days")
    let refused = try #require(queue.add(Data("{}".utf8), to: collector, at: start))
    queue.failed(refused, retryable: false, at: start)
    #expect(Self.names(queue).isEmpty, "kept after a refusal")
  }

  /// What the collector's answer means, in the one place the uploader and the queue read it.
  @Test func theAnswerSaysWhetherToTryAgain() {
    let outcomes = [200, 204, 301, 307, 400, 404, 408, 429, 500, 503].map { UploadRetryPolicy.Outcome(status: $0) }
    #expect(
      outcomes == [.delivered, .delivered, .refused, .refused, .refused, .refused, .failed, .failed, .failed, .failed])
    #expect(UploadRetryPolicy.Outcome(status: nil) == .failed)
  }

  @Test func aKeptUploadToPlainHTTPIsRefused() throws {
    let queue = Self.queue()
    defer { try? FileManager.default.removeItem(at: queue.directory) }
    _ = try #require(queue.add(Data("{}".utf8), to: URL(string: "http://reports.test/")!))
    // Written by this queue, but a file that says http is not one it sends.
    let taken = queue.takeDue(at: Date().addingTimeInterval(1))
    #expect(taken.isEmpty)
    #expect(Self.names(queue).isEmpty)
  }
}
