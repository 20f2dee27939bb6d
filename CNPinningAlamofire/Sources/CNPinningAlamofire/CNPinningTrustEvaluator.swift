#if canImport(Security)
import Alamofire
import CNPinning
import CNPinningSession
import Security

/// Alamofire's `ServerTrustEvaluating` by a `CNPinningManager`'s pins: the default evaluation
/// with the host name first, as Alamofire's own evaluators do, then the chain the trust built
/// judged by the host's pins, reported to `reporter` as the seed API reports. A refusal is
/// Alamofire's `serverTrustEvaluationFailed` with `customEvaluationFailed` holding the
/// ``CNPinning/CNServerTrustRefusal``; a host the pins no longer cover (a policy signed out
/// since the manager chose this evaluator) goes by `unpinnedHosts`.
public final class CNPinningTrustEvaluator: ServerTrustEvaluating {
  /// The pins.
  public let manager: CNPinningManager
  /// What a host without pins gets: the default evaluation alone (`allow`), or a refusal.
  public let unpinnedHosts: CNUnpinnedHostPolicy
  /// Where failures and expiries are reported, if anywhere.
  public let reporter: CNPinningReporter?

  /// An evaluator of `manager`'s pins.
  public init(manager: CNPinningManager, unpinnedHosts: CNUnpinnedHostPolicy = .allow, reporter: CNPinningReporter? = nil) {
    self.manager = manager
    self.unpinnedHosts = unpinnedHosts
    self.reporter = reporter
  }

  /// Throws Alamofire's `serverTrustEvaluationFailed` unless the trust holds for `host` and its
  /// chain satisfies the host's pins (or they are report-only).
  public func evaluate(_ trust: SecTrust, forHost host: String) throws {
    // Sets the SSL policy for `host`, which the pins' evaluation then keeps.
    try trust.af.performValidation(forHost: host)
    let result: CNPinningResult
    do {
      result = try manager.validate(serverTrust: trust, host: host, reporter: reporter)
    } catch {
      throw AFError.serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: error))
    }
    if case .notPinned = result, unpinnedHosts == .deny {
      throw AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: host))
    }
  }
}
#endif
