import Foundation

/// The outcome of the platform's own trust evaluation of a server-trust challenge (on Apple
/// platforms, `SecTrustEvaluateWithError` with an SSL policy for the host).
package enum CNTrustEvaluation: Sendable, Equatable {
  /// Trusted; the chain it built, leaf first, ending with the anchor.
  case trusted([CNCertificate])
  /// Not trusted, and why.
  case untrusted(String)
}

extension CNTrustEvaluation {
  /// A platform evaluation's outcome as a value: whether it trusted the chain, the reason it
  /// gave when not, and the chain it built, leaf first, as DER (nil when it gives none). A
  /// certificate that cannot be read makes the whole evaluation untrusted.
  /// ``init(trusted:reason:chain:)`` with Security's error as its code and description (either
  /// may be missing) for the reason.
  package init(trusted: Bool, errorCode: Int?, errorDescription: String?, chain: [Data]?) {
    let reason = errorCode.map { code in [String(code), errorDescription].compactMap { $0 }.joined(separator: " ") }
    self.init(trusted: trusted, reason: reason, chain: chain)
  }

  package init(trusted: Bool, reason: String?, chain: [Data]?) {
    guard trusted else {
      self = .untrusted(reason ?? "the chain is not trusted")
      return
    }
    guard let chain else {
      self = .untrusted("the evaluated chain is not available")
      return
    }
    var certificates: [CNCertificate] = []
    for der in chain {
      guard let parsed = try? CNCertificate(derEncoded: der) else {
        self = .untrusted("a certificate of the evaluated chain cannot be read")
        return
      }
      certificates.append(parsed)
    }
    self = .trusted(certificates)
  }
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

/// How the seed's `validate(challenge:)` answers a challenge it handles.
package enum CNSeedAnswer: Sendable, Equatable {
  /// `(.performDefaultHandling, nil)`: the pins are satisfied; the system checks the rest.
  case performDefaultHandling
  /// `(.cancelAuthenticationChallenge, nil)`: refused.
  case cancel
}

extension CNChallengeDecision {
  /// The seed API's answer (`validate(challenge:)`), as the seed's own code expects it: default
  /// handling for every challenge other than server trust (NTLM, Negotiate, HTTP authentication,
  /// a server's optional request for a client certificate, which the system answers as it would
  /// without a delegate); throws ``notPinned`` for a host without pins, which the app decides.
  package func seedAnswer() throws(CNPolicyError) -> CNSeedAnswer {
    switch self {
    case .notPinned: throw .notPinned
    case .notServerTrust, .performDefaultHandling: return .performDefaultHandling
    case .cancel: return .cancel
    }
  }

  /// Whether the seed's completion-handler `validate` handles the challenge (`strict`: the
  /// `validateServerTrust` form), giving `answer` its answer when it does.
  package func handled(strict: Bool, _ answer: (CNSeedAnswer) -> Void) -> Bool {
    guard let seed = try? (strict ? serverTrustAnswer() : seedAnswer()) else { return false }
    answer(seed)
    return true
  }

  /// The stricter answer (`validateServerTrust(challenge:)`): as `seedAnswer`, but every
  /// challenge other than server trust is left to the app (throws ``notServerTrust``), for an app
  /// that answers client-certificate or NTLM challenges itself.
  package func serverTrustAnswer() throws(CNPolicyError) -> CNSeedAnswer {
    if case .notServerTrust = self { throw .notServerTrust }
    return try seedAnswer()
  }
}

extension CNChallengeDecision {
  /// The answer to a server trust handed over without a challenge (Apple's
  /// `validate(serverTrust:host:port:reporter:)`): the pins' result to go on with, including
  /// ``CNPinningResult/notPinned`` for the caller to decide, or the refusal.
  package func serverTrustResult(host: String) throws(CNServerTrustRefusal) -> CNPinningResult {
    switch self {
    case .performDefaultHandling(let result): return result
    case .notPinned: return .notPinned
    case .cancel(let rejection):
      var failure: CNPinningFailure?
      if case .pinMismatch(let pinFailure) = rejection { failure = pinFailure }
      throw CNServerTrustRefusal(host: host, pinFailure: failure, description: rejection.description)
    case .notServerTrust:
      // Not reached from a server-trust evaluation; refused all the same.
      throw CNServerTrustRefusal(host: host, pinFailure: nil, description: "not a server-trust evaluation")
    }
  }
}

/// Why a server trust handed over without a challenge was refused (on Apple platforms,
/// `CNPinningManager.validate(serverTrust:host:port:reporter:)`, which Alamofire's adapter calls).
public struct CNServerTrustRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  /// The host the trust was judged for.
  public let host: String
  /// The pins' failure when they refused the chain (or the host name); nil when the trust
  /// evaluation failed.
  public let pinFailure: CNPinningFailure?
  /// Why it was refused.
  public let description: String
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
  /// the pins and any failure is reported to `reporter`. `evaluateTrust` returns nil when the
  /// challenge has no server trust.
  package func decide(
    authenticationMethod: String, host: String, port: Int, reporter: CNPinningReporter? = nil,
    evaluateTrust: () -> CNTrustEvaluation?
  ) -> CNChallengeDecision {
    let (decision, pinning, chain) = judge(
      authenticationMethod: authenticationMethod, host: host, evaluateTrust: evaluateTrust)
    if let pinning { _ = reporter?.report(pinning, host: host, port: port, chain: chain, pins: self) }
    if case .cancel(let rejection) = decision {
      let failure: CNPinningFailure?
      if case .pinMismatch(let pinFailure) = rejection { failure = pinFailure } else { failure = nil }
      recordRefusal(host: host, port: port, pinFailure: failure, reason: rejection.description)
    }
    return decision
  }

  /// `decide` for a challenge carrying `serverTrust`, evaluated by `evaluate` (off the caller's
  /// threads) only for a server-trust challenge to a pinned host; a refusal is logged.
  package func decide<Trust>(
    authenticationMethod: String, host: String, port: Int, reporter: CNPinningReporter?, serverTrust: Trust?,
    evaluate: (Trust) async -> CNTrustEvaluation
  ) async -> CNChallengeDecision {
    var evaluation: CNTrustEvaluation?
    if authenticationMethod == Self.serverTrustAuthenticationMethod, let serverTrust,
      let name = try? HostName.parseChallengeHost(host).get(), configuration(for: name) != nil
    {
      evaluation = await evaluate(serverTrust)
    }
    return logged(
      decide(authenticationMethod: authenticationMethod, host: host, port: port, reporter: reporter) { evaluation },
      host: host)
  }

  /// As the async form, evaluating on the calling thread when the decision needs it.
  package func decideSynchronously<Trust>(
    authenticationMethod: String, host: String, port: Int, reporter: CNPinningReporter?, serverTrust: Trust?,
    evaluate: (Trust) -> CNTrustEvaluation
  ) -> CNChallengeDecision {
    logged(
      decide(authenticationMethod: authenticationMethod, host: host, port: port, reporter: reporter) {
        serverTrust.map(evaluate)
      }, host: host)
  }

  private func logged(_ decision: CNChallengeDecision, host: String) -> CNChallengeDecision {
    if case .cancel(let rejection) = decision { CNPinningLog.warn("\(host): \(rejection)") }
    return decision
  }

  /// `decide` without the report: also the pin result and the verified chain it judged (nil and
  /// empty when the pins were not consulted), for a caller that reports once, itself.
  package func judge(authenticationMethod: String, host: String, evaluateTrust: () -> CNTrustEvaluation?)
    -> (decision: CNChallengeDecision, pinning: CNPinningResult?, chain: [CNCertificate])
  {
    guard authenticationMethod == Self.serverTrustAuthenticationMethod else { return (.notServerTrust, nil, []) }
    let name: HostName
    switch HostName.parseChallengeHost(host) {
    case .success(let parsed): name = parsed
    case .failure(let invalid):
      // Refused for its name, before any trust evaluation (which needs a host to check).
      let failure = CNPinningFailure.invalidHost(host, reason: invalid.reason, chain: CertificateChain(leafFirst: []))
      return (.cancel(.pinMismatch(failure)), .rejected(failure), [])
    }
    guard configuration(for: name) != nil else { return (.notPinned, nil, []) }
    switch evaluateTrust() {
    case nil:
      return (.cancel(.missingServerTrust), nil, [])
    case .untrusted(let reason)?:
      return (.cancel(.untrusted(reason)), nil, [])
    case .trusted(let chain)?:
      let result = evaluate(name, chain: chain)
      switch result {
      case .accepted, .reportOnly: return (.performDefaultHandling(result), result, chain)
      case .notPinned: return (.notPinned, result, chain)
      case .rejected(let failure): return (.cancel(.pinMismatch(failure)), result, chain)
      }
    }
  }
}

extension HostName {
  /// A host as a server-trust challenge names it, for its pins: as `parse`, except that a
  /// zone-scoped IPv6 literal (`fe80::1%en0`, a device on the local network) stands for its
  /// address. Pins name addresses, never interfaces, and an address is only ever pinned exactly,
  /// so the zone can neither hide a pinned address nor make another host's pins apply; without
  /// it, the seed's `validate` cancelled such hosts even when unpinned, where the seed left them
  /// to the app.
  package static func parseChallengeHost(_ host: String) -> Result<HostName, Invalid> {
    let literal = unbracketed(host)
    guard let percent = literal.firstIndex(of: "%"), literal[..<percent].contains(":") else { return parse(host) }
    return parse(String(literal[..<percent]))
  }
}
