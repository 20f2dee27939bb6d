import Foundation

/// A number of seconds from a caller or a file, bounded once before it becomes a `Duration`, a
/// deadline or an integer count: at most a year, and zero, negative and NaN mean none. Unbounded
/// conversions trap (`Duration.seconds(.infinity)`, `Int(1e300)`), and libcurl and Foundation's
/// URLSession on Linux convert what they are given, so every timeout, wait and delay in the
/// package passes through here.
package struct BoundedInterval: Sendable, Hashable, Comparable {
  /// The longest interval kept: a year, which libcurl's options, Dispatch's deadlines and every
  /// integer count below hold.
  package static let maximum: TimeInterval = 365 * 24 * 3600
  package static let second = BoundedInterval(1)!

  /// In `0 < seconds <= maximum`.
  package let seconds: TimeInterval

  /// nil for none: zero, negative or NaN. Infinity and anything beyond a year is a year.
  package init?(_ seconds: TimeInterval) {
    guard seconds > 0 else { return nil }
    self.seconds = min(seconds, Self.maximum)
  }

  /// nil for none: zero or negative. Anything beyond a year is a year.
  package init?(_ duration: Duration) {
    let (whole, attoseconds) = duration.components
    self.init(Double(whole) + Double(attoseconds) / 1e18)
  }

  package var duration: Duration { .nanoseconds(Int64(nanoseconds)) }

  /// Rounded up, so that a short timeout never becomes 0, which libcurl reads as its default.
  package var milliseconds: Int { Int((seconds * 1000).rounded(.up)) }

  package var nanoseconds: UInt64 { UInt64((seconds * 1e9).rounded(.up)) }

  /// The uptime `nanoseconds` after `start`.
  package func deadline(after start: DispatchTime = .now()) -> DispatchTime {
    DispatchTime(uptimeNanoseconds: start.uptimeNanoseconds + nanoseconds)
  }

  /// What a Foundation API that takes a `TimeInterval` is given for `interval`: its seconds, or
  /// a year for none (Foundation's URLSession on Linux converts what it is given to integers).
  package static func foundationSeconds(_ interval: BoundedInterval?) -> TimeInterval {
    interval?.seconds ?? maximum
  }

  /// The tighter of two limits where nil is none.
  package static func tighter(_ a: BoundedInterval?, _ b: BoundedInterval?) -> BoundedInterval? {
    guard let a, let b else { return a ?? b }
    return min(a, b)
  }

  package static func < (lhs: BoundedInterval, rhs: BoundedInterval) -> Bool { lhs.seconds < rhs.seconds }
}

extension Date {
  /// Whole seconds since 1970, within the years 1 to 9999 (``ISO8601/validRange``); NaN is the
  /// earliest, at which no certificate is valid yet. For OpenSSL's verification time.
  package var boundedEpochSeconds: Int {
    let seconds = timeIntervalSince1970
    guard seconds >= ISO8601.validRange.lowerBound else { return Int(ISO8601.validRange.lowerBound) }
    return Int(min(seconds, ISO8601.validRange.upperBound).rounded(.down))
  }

  /// Nanoseconds since 1970, 0 before it and `UInt64.max` from the year 2554 on.
  package var boundedEpochNanoseconds: UInt64 {
    let nanoseconds = timeIntervalSince1970 * 1e9
    guard nanoseconds > 0 else { return 0 }
    return nanoseconds < 0x1p64 ? UInt64(nanoseconds) : .max
  }
}
