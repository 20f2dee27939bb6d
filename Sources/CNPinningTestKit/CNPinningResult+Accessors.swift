// Platform-neutral: tests on every platform read results through these.
import CNPinning

extension CNPinningResult {
  /// The match, when the pins accepted the chain; for `#require` in tests.
  public var acceptedMatch: CNPinningMatch? {
    if case .accepted(let match) = self { return match }
    return nil
  }

  /// The failure, when the chain was rejected (report-only results are not rejections).
  public var rejection: CNPinningFailure? {
    if case .rejected(let failure) = self { return failure }
    return nil
  }

  /// The failure, when it was only reported (the configuration does not enforce).
  public var reportOnlyFailure: CNPinningFailure? {
    if case .reportOnly(let failure) = self { return failure }
    return nil
  }
}
