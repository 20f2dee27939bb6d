// CurlDelivery belongs to the Linux transport.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Dispatch
import Testing

@testable import CNPinningSession
@testable import CNPinningCurl

/// The hand-off of a transfer's report from the network thread to the requesting task, with both
/// sides racing: every round's task gets that round's report, exactly once.
///
/// Under `make tsan` it is also the stress that reproduced CI's report at 611d5de (a race between
/// `withUnsafeContinuation` and `resume(returning:)`): with `Synchronization.Mutex` guarding the
/// hand-off, TSan could not see the lock's contended path (a futex wait in uninstrumented code);
/// with a pthread lock it still reported the Swift runtime's own ordering until the delivery
/// resumed the task under its lock (docs/decisions/testing.md). Resume outside the lock and
/// `aResumedTaskWaitsAgainAtOnce` reports it again.
@Suite("report delivery", .tags(.concurrency))
struct ReportDeliveryTests {
  /// A transfer's side of the hand-off, as `CurlTransfer` has it: the report is written by the
  /// driver before the delivery and read by the task after it, with nothing else ordering them.
  // Unchecked Sendable: `round` is ordered by the delivery alone, which is what the test checks.
  final class Transfer: @unchecked Sendable {
    let delivery = CurlDelivery()
    var round = -1

    /// Writes the report and delivers it, unless delivered already (as `CurlTransfer.deliver`).
    func deliver(_ round: Int) -> CurlDelivery.Resumption? {
      guard !delivery.hasDelivered else { return nil }
      self.round = round
      return delivery.deliver()
    }
  }

  /// Delivers the round's report, resumes the waiting task if there is one, and tries a second
  /// delivery; returns whether that second one did nothing, as it must.
  static func deliverTwice(to transfer: Transfer, round: Int) -> Bool {
    transfer.deliver(round)?.resume()
    // A late report no round has: were it to replace the first, the task would see it.
    return transfer.deliver(.max) == nil
  }

  @Test func aRacingDeliveryReachesTheTaskOnce() async {
    let rounds = 20_000
    let secondDeliveriesIgnored = Locked(0)
    var mismatches = 0
    for round in 0..<rounds {
      let transfer = Transfer()
      DispatchQueue.global().async {
        let ignored = Self.deliverTwice(to: transfer, round: round)
        secondDeliveriesIgnored.withLock { $0 += ignored ? 1 : 0 }
      }
      await transfer.delivery.take()
      if transfer.round != round { mismatches += 1 }
    }
    #expect(mismatches == 0)
    // The last round's second delivery may still be on its way: wait for it, boundedly.
    for _ in 0..<1000 where secondDeliveriesIgnored.withLock({ $0 }) < rounds {
      try? await Task.sleep(for: .milliseconds(5))
    }
    #expect(secondDeliveriesIgnored.withLock { $0 } == rounds)
  }

  /// The network thread's own order: it resumes the task and touches the delivery no more, and
  /// the task waits again at once. Under `make tsan` this is what CI reported at 8eda8eb (the next
  /// `withUnsafeContinuation` writing the frame the last `resume(returning:)` read).
  @Test func aResumedTaskWaitsAgainAtOnce() async {
    let rounds = 20_000
    var mismatches = 0
    for round in 0..<rounds {
      let transfer = Transfer()
      DispatchQueue.global().async { transfer.deliver(round)?.resume() }
      await transfer.delivery.take()
      if transfer.round != round { mismatches += 1 }
    }
    #expect(mismatches == 0)
  }
}
#endif
