import Foundation

/// Thrown by the async `validate(challenge:)` for a host that has no pins, so that the caller
/// chooses the fallback policy (as in the seed).
public enum CNPinningError: Error, Sendable, Equatable {
  /// The host has no pins.
  case notPinned
}

/// The outcome of the platform's own trust evaluation of a server-trust challenge (on Apple
/// platforms, `SecTrustEvaluateWithError` with an SSL policy for the host).
package enum CNTrustEvaluation: Sendable, Equatable {
  /// Trusted; the chain it built, leaf first, ending with the anchor.
  case trusted([CNCertificate])
  /// Not trusted, and why.
  case untrusted(String)
}

/// What an authentication challenge handler should do, decided by shared code from plain values
/// so that the same decisions are made (and tested) on every platform.
package enum CNChallengeDecision: Sendable, Equatable {
  /// Not a server-trust challenge: default handling.
  case notServerTrust
  /// The host has no pins: the caller decides (the seed's `validate` returns false).
  case notPinned
  /// Pins satisfied (or report-only): `.performDefaultHandling`, so the OS still checks the
  /// connection in full.
  case performDefaultHandling(CNPinningResult)
  /// Refuse the connection (`.cancelAuthenticationChallenge`), with the reason.
  case cancel(CNChallengeRejection)
}

/// Why a challenge was refused.
package enum CNChallengeRejection: Sendable, Equatable, CustomStringConvertible {
  /// The challenge carried no server trust to evaluate.
  case missingServerTrust
  /// The platform's trust evaluation failed (its reason).
  case untrusted(String)
  /// The verified chain does not satisfy the pins.
  case pinMismatch(CNPinningFailure)

  package var description: String {
    switch self {
    case .missingServerTrust: return "the challenge has no server trust to evaluate"
    case .untrusted(let reason): return "trust evaluation failed: \(reason)"
    case .pinMismatch(let failure): return failure.description
    }
  }
}

extension CNPinningManager {
  /// The authentication method of server-trust challenges (`NSURLAuthenticationMethodServerTrust`).
  package static let serverTrustAuthenticationMethod = "NSURLAuthenticationMethodServerTrust"

  /// Decides a challenge: only server-trust challenges for pinned hosts are handled; trust is
  /// evaluated (by `evaluateTrust`, never for other hosts), then the verified chain is judged by
  /// the pins and any failure is reported. `evaluateTrust` returns nil when the challenge has no
  /// server trust.
  package func decide(
    authenticationMethod: String, host: String, port: Int, evaluateTrust: () -> CNTrustEvaluation?
  ) -> CNChallengeDecision {
    guard authenticationMethod == Self.serverTrustAuthenticationMethod else { return .notServerTrust }
    guard configuration(for: host) != nil || HostName.isInvalid(host) else { return .notPinned }
    switch evaluateTrust() {
    case nil:
      return .cancel(.missingServerTrust)
    case .untrusted(let reason)?:
      return .cancel(.untrusted(reason))
    case .trusted(let chain)?:
      let (result, _) = evaluateAndReport(host: host, port: port, chain: chain)
      switch result {
      case .accepted, .reportOnly: return .performDefaultHandling(result)
      case .notPinned: return .notPinned
      case .rejected(let failure): return .cancel(.pinMismatch(failure))
      }
    }
  }
}

extension HostName {
  /// Whether `text` cannot name a host; such hosts are refused rather than treated as unpinned.
  static func isInvalid(_ text: String) -> Bool {
    if case .failure = parse(text) { return true }
    return false
  }
}
