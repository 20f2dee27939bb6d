import Foundation

/// When a failure-report upload is sent again, in one place: what the collector's answer means,
/// how long to wait, and when to give up. Used by the uploader (the answer) and by the kept
/// uploads' queue (the wait and the bounds).
package enum UploadRetryPolicy {
  /// How one send ended.
  package enum Outcome: Equatable, Sendable {
    /// The collector answered 2xx.
    case delivered
    /// It answered with a status a retry would not change (a redirect, most 4xx): given up.
    case refused
    /// No answer, or 408, 429 or 5xx: worth another try.
    case failed

    /// The outcome of a send the collector answered with `status` (nil: no answer).
    package init(status: Int?) {
      switch status {
      case .some(200..<300): self = .delivered
      case .none, .some(408), .some(429), .some(500..<600): self = .failed
      default: self = .refused
      }
    }
  }

  /// An upload is given up after this many failed sends …
  package static let maximumAttempts = 10
  /// … or this long after it was queued.
  package static let maximumAge: TimeInterval = 7 * 24 * 3600

  /// The wait before attempt `attempts + 1`: a minute, doubling, at most six hours.
  package static func delay(afterAttempts attempts: Int) -> TimeInterval {
    min(60 * pow(2, Double(max(attempts - 1, 0))), 6 * 3600)
  }

  /// When an upload queued at `queuedAt`, whose send number `attempts` just ended `failed`
  /// (`retryable`) or `refused`, goes again; nil when it is given up.
  package static func nextTry(afterAttempts attempts: Int, retryable: Bool, queuedAt: Date, at now: Date) -> Date? {
    guard retryable, attempts < maximumAttempts, now.timeIntervalSince(queuedAt) < maximumAge else { return nil }
    return now + delay(afterAttempts: attempts)
  }
}
