// ReportDelivery belongs to the Linux transport.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import Dispatch
import Testing

@testable import CNPinningSession
@testable import CNPinningSessionCore
@testable import CNPinningSessionLinux

/// The hand-off of a transfer's report from the network thread to the requesting task, with both
/// sides racing: every round's task gets that round's report, exactly once.
///
/// Under `make tsan` it is also the stress that reproduced CI's report at 611d5de (a race between
/// `withUnsafeContinuation` and `resume(returning:)`): with `Synchronization.Mutex` guarding the
/// hand-off, TSan could not see the lock's contended path (a futex wait in uninstrumented code);
/// with a pthread lock it still reports the Swift runtime's own fast path, which
/// `scripts/tsan.supp` names and docs/decisions/testing.md explains. Run it without the suppressions
/// file to see either.
@Suite("report delivery", .tags(.concurrency))
struct ReportDeliveryTests {
  final class Transfer: Sendable {
    let report = ReportDelivery()
  }

  /// Round `round`'s report; `networkTime` carries the round, so the task can tell whose it got.
  static func report(_ round: UInt64) -> TransferReport {
    TransferReport(
      result: .failure(.connectionLost(host: "api.test", reason: "the connection ended in round \(round)")),
      judgements: [], networkTime: round, mayBeSentAgain: false)
  }

  /// Delivers the round's report, resumes the waiting task if there is one, and tries a second
  /// delivery; returns whether that second one did nothing, as it must.
  static func deliverTwice(to transfer: Transfer, round: Int) -> Bool {
    transfer.report.deliver { report(UInt64(round)) }?.resume()
    // A late report no round has: were it to replace the first, the task would see it.
    return transfer.report.deliver { report(.max) } == nil
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
      let report = await transfer.report.take()
      if report.networkTime != UInt64(round) { mismatches += 1 }
    }
    #expect(mismatches == 0)
    // The last round's second delivery may still be on its way: wait for it, boundedly.
    for _ in 0..<1000 where secondDeliveriesIgnored.withLock({ $0 }) < rounds {
      try? await Task.sleep(for: .milliseconds(5))
    }
    #expect(secondDeliveriesIgnored.withLock { $0 } == rounds)
  }
}
#endif
