// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinningTestKit
import Foundation
import Testing

@Suite("Off the shared threads")
struct OffTheSharedThreadsTests {
  /// As many blocking bodies as the machine has cores (the width of the shared threads) wait
  /// until a task on the shared threads releases them. Had the bodies run on the shared threads,
  /// that task could not run until they gave up.
  @Test func blockingBodiesLeaveTheSharedThreadsFree() async throws {
    let width = ProcessInfo.processInfo.activeProcessorCount
    let gate = Gate()
    let blockers = (0..<width).map { _ in
      Task { await offTheSharedThreads { gate.waitForRelease(atMost: 60) } }
    }
    let deadline = Date().addingTimeInterval(60)
    while gate.waiting < width && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    #expect(gate.waiting == width)
    gate.release()
    for blocker in blockers { #expect(await blocker.value, "a body was not released before its deadline") }
  }

  /// The body runs in the calling task: task-local values (which is how `#expect` finds its
  /// test) are there.
  @Test func theBodyKeepsTheTasksLocals() async {
    let seen = await Marker.$value.withValue("inside") { await offTheSharedThreads { Marker.value } }
    #expect(seen == "inside")
  }
}

private enum Marker {
  @TaskLocal static var value = "outside"
}

/// Blocks threads until released, counting how many wait.
// Unchecked Sendable: its state is touched only under the NSCondition.
private final class Gate: @unchecked Sendable {
  private let condition = NSCondition()
  private var isReleased = false
  private var waitingCount = 0

  var waiting: Int { condition.withLock { waitingCount } }

  /// Blocks until released or until `seconds` pass; whether it was released.
  func waitForRelease(atMost seconds: TimeInterval) -> Bool {
    condition.withLock {
      waitingCount += 1
      let deadline = Date().addingTimeInterval(seconds)
      while !isReleased && condition.wait(until: deadline) {}
      return isReleased
    }
  }

  func release() {
    condition.withLock {
      isReleased = true
      condition.broadcast()
    }
  }
}
#endif
