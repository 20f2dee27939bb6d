import CNPinning
import Foundation
import Testing

/// The one home that turns a caller's or a file's seconds into a `Duration`, a deadline or an
/// integer count (issue 66, N1): at most a year; zero, negative and NaN are none.
@Suite struct BoundedIntervalTests {
  @Test func anyNumberOfSecondsIsBoundedOrNone() throws {
    for none in [0, -1, -.infinity, .nan, -.greatestFiniteMagnitude] as [TimeInterval] {
      #expect(BoundedInterval(none) == nil, "\(none)")
    }
    for huge in [.infinity, .greatestFiniteMagnitude, 1e21, BoundedInterval.maximum + 1] as [TimeInterval] {
      let bounded = try #require(BoundedInterval(huge))
      #expect(bounded.seconds == BoundedInterval.maximum)
      #expect(bounded.duration == .seconds(365 * 24 * 3600))
      #expect(bounded.milliseconds == 365 * 24 * 3600 * 1000)
      #expect(bounded.nanoseconds == 365 * 24 * 3600 * 1_000_000_000)
      #expect(bounded.deadline(after: DispatchTime(uptimeNanoseconds: 7)).uptimeNanoseconds == bounded.nanoseconds + 7)
    }
    // A short timeout never becomes 0 milliseconds, which libcurl reads as its default.
    #expect(BoundedInterval(0.0001)?.milliseconds == 1)
    #expect(BoundedInterval(1.5)?.duration == .milliseconds(1500))
  }

  @Test func durationsAreBoundedTheSameWay() {
    #expect(BoundedInterval(Duration.seconds(Int64.max))?.seconds == BoundedInterval.maximum)
    #expect(BoundedInterval(Duration.zero) == nil && BoundedInterval(Duration.seconds(-5)) == nil)
    #expect(BoundedInterval(Duration.milliseconds(250))?.seconds == 0.25)
  }

  @Test func theTighterOfTwoLimitsWhereNoneIsNone() {
    let (one, two) = (BoundedInterval(1), BoundedInterval(2))
    #expect(BoundedInterval.tighter(one, two) == one && BoundedInterval.tighter(two, one) == one)
    #expect(BoundedInterval.tighter(nil, two) == two && BoundedInterval.tighter(two, nil) == two)
    #expect(BoundedInterval.tighter(nil, nil) == nil)
    #expect(BoundedInterval.foundationSeconds(nil) == BoundedInterval.maximum)
  }

  @Test func datesBecomeBoundedIntegers() {
    #expect(Date(timeIntervalSince1970: .infinity).boundedEpochSeconds == 253_402_300_799)
    #expect(Date(timeIntervalSince1970: .nan).boundedEpochSeconds == -62_135_596_800)
    #expect(Date(timeIntervalSince1970: -.infinity).boundedEpochSeconds == -62_135_596_800)
    #expect(Date(timeIntervalSince1970: 1_800_000_000.9).boundedEpochSeconds == 1_800_000_000)
    #expect(Date(timeIntervalSince1970: 1e300).boundedEpochNanoseconds == .max)
    #expect(Date(timeIntervalSince1970: .nan).boundedEpochNanoseconds == 0)
    #expect(Date(timeIntervalSince1970: -1).boundedEpochNanoseconds == 0)
    #expect(Date(timeIntervalSince1970: 2).boundedEpochNanoseconds == 2_000_000_000)
  }
}
