#if canImport(Security)
import Alamofire
import CNPinning
import CNPinningSession

/// Alamofire's `ServerTrustManager`, finding a host's evaluator by CNPinning's host rules (a
/// domain with `includesSubdomains` covers the names below it; names compare as host names do,
/// whatever their case or trailing dot) instead of Alamofire's exact match. A pinned host gets a
/// ``CNPinningTrustEvaluator``; a host the pins do not cover gets Alamofire's default handling
/// (`allow`, the system's evaluation) or is refused (`deny`), where Alamofire's own manager
/// refuses every host it has no evaluator for. The set-up is one line:
/// `Session(serverTrustManager: CNPinningServerTrustManager(manager: try CNPinningManager()))`.
open class CNPinningServerTrustManager: ServerTrustManager, @unchecked Sendable {
  // Unchecked Sendable as Alamofire's ServerTrustManager is: every stored property is a let of a Sendable type.
  /// The pins.
  public let manager: CNPinningManager
  /// What a host without pins gets.
  public let unpinnedHosts: CNUnpinnedHostPolicy
  private let evaluator: CNPinningTrustEvaluator

  /// A manager for `manager`'s pins: `unpinnedHosts` says what a host without pins gets, and
  /// failures and expiries go to `reporter`, if given.
  public init(manager: CNPinningManager, unpinnedHosts: CNUnpinnedHostPolicy = .allow, reporter: CNPinningReporter? = nil) {
    self.manager = manager
    self.unpinnedHosts = unpinnedHosts
    evaluator = CNPinningTrustEvaluator(manager: manager, unpinnedHosts: unpinnedHosts, reporter: reporter)
    super.init(allHostsMustBeEvaluated: unpinnedHosts == .deny, evaluators: [:])
  }

  /// The evaluator for a pinned host; nil (Alamofire's default handling) for another host, or
  /// Alamofire's `noRequiredEvaluator` when unpinned hosts are denied.
  open override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
    if manager.configuration(for: host) != nil { return evaluator }
    if unpinnedHosts == .deny { throw AFError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: host)) }
    return nil
  }
}
#endif
