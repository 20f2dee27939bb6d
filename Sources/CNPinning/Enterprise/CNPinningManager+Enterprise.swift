import Foundation

extension CNPinningManager {
  /// Verifies and applies a signed policy (the raw JWS). Throws ``CNPolicyError``, for example
  /// `policyAlreadyApplied` when a policy is applied (refresh it instead); state is unchanged
  /// when it throws.
  /// A policy older than one already accepted (or with the same `iat` and other content) is
  /// refused, even after `signOut`: see `policyHighWaterMark`.
  public func applyEnterprisePolicy(with signedPolicy: Data, at date: Date = Date()) throws {
    let (support, policy) = try verify(signedPolicy, at: date)
    try support.state.withLock { state in
      guard state.policy == nil else { throw CNPolicyError.policyAlreadyApplied }
      try state.accept(policy, token: signedPolicy)
    }
  }

  /// Verifies a signed policy and replaces the applied one with it. Throws `noPolicyApplied` when
  /// none is applied (after `signOut`, for example) and `olderThanAppliedPolicy` for a policy
  /// issued before the applied one; state is unchanged when it throws.
  public func refreshEnterprisePolicy(with signedPolicy: Data, at date: Date = Date()) throws {
    let (support, policy) = try verify(signedPolicy, at: date)
    try support.state.withLock { state in
      guard let applied = state.policy else { throw CNPolicyError.noPolicyApplied }
      guard policy.issuedAt >= applied.issuedAt else {
        throw CNPolicyError.olderThanAppliedPolicy(applied: applied.issuedAt, offered: policy.issuedAt)
      }
      try state.accept(policy, token: signedPolicy)
    }
  }

  /// Drops the applied policy (on logout); evaluation falls back to the app's own pins. The
  /// anti-rollback mark rises above it: neither that policy nor any issued before it applies
  /// again, whoever serves it (a rescue URL included). The mark is kept in the ``CNPolicyStore`` the
  /// manager last restored from or saved to, written now (a failure to write is logged), so that
  /// the store does not bring the policy back at the next launch; without a store it holds for the
  /// manager's life.
  public func signOut() {
    let store = enterprise?.state.withLock { state -> CNPolicyStore? in
      state.highWaterMark = state.highWaterMark?.signingOut
      state.policy = nil
      state.token = nil
      return state.store
    }
    guard let store else { return }
    do {
      try saveEnterprisePolicy(to: store)
    } catch {
      CNPinningLog.warn("signOut could not keep its mark in the policy store: \(error)")
    }
  }

  /// Whether this manager was given a policy-signing key, and so can accept policies.
  package var acceptsPolicies: Bool { enterprise != nil }

  /// The applied policy as signed (whitespace around it trimmed); nil when none is applied.
  package var enterprisePolicyToken: Data? { enterprise?.state.withLock { $0.token } }

  /// The applied policy, if any (whether or not its window includes now).
  public var enterprisePolicy: CNEnterprisePolicy? { enterprise?.state.withLock { $0.policy } }

  /// The newest policy this manager has accepted (nil before the first, or without a signing
  /// key). Persist it to keep refusing older policies after the app restarts.
  public var policyHighWaterMark: CNPolicyHighWaterMark? { enterprise?.state.withLock { $0.highWaterMark } }

  /// Restores a persisted mark; it only ever rises (a lower mark changes nothing; a sign-out
  /// of the same policy is higher than its acceptance).
  public func raisePolicyHighWaterMark(to mark: CNPolicyHighWaterMark) {
    enterprise?.state.withLock { state in
      if mark.isAbove(state.highWaterMark) { state.highWaterMark = mark }
    }
  }

  /// When the applied policy was issued; nil when none is applied.
  public var enterprisePolicyIssuedAt: Date? { enterprisePolicy?.issuedAt }

  /// When the applied policy expires; nil when none is applied.
  public var enterprisePolicyExpiry: Date? { enterprisePolicy?.expiry }

  /// Whether a policy entry for `host` (as written; `"*"` for every host) changes a host the app
  /// pins: one the pins cover, other than the authentication host.
  private func changes(_ host: String, authenticationHost: HostName) -> Bool {
    guard host != "*" else {
      return pinnedDomains.contains { $0.key != authenticationHost.normalized || $0.value.includesSubdomains }
    }
    guard case .success(let name) = HostName.parse(host), name != authenticationHost else { return false }
    return configuration(for: name) != nil
  }

  private func verify(_ token: Data, at date: Date) throws -> (EnterpriseSupport, CNEnterprisePolicy) {
    guard let enterprise else { throw CNPolicyError.noSigningKey }
    let policy = try CNEnterprisePolicy(token: token, key: enterprise.key, at: date, clockSkew: enterprise.clockSkew)
    if let refusal = policy.audienceRefusal(expected: enterprise.audience) { throw refusal }
    let named = Set(policy.chains.keys).union(policy.reportOnlyUntil.keys).sorted()
    guard named.contains(where: { changes($0, authenticationHost: enterprise.authenticationHost) }) else {
      throw CNPolicyError.changesNoHost(named)
    }
    for warning in policy.warnings { CNPinningLog.warn("enterprise policy: \(warning)") }
    return (enterprise, policy)
  }
}

extension CNPinningManager.EnterpriseState {
  /// Applies `policy` (signed as `token`) unless the mark refuses it, and raises the mark.
  mutating func accept(_ policy: CNEnterprisePolicy, token: Data) throws(CNPolicyError) {
    if let markUnknown { throw markUnknown }
    if let refusal = highWaterMark?.refusal(of: policy) { throw refusal }
    self.policy = policy
    self.token = Data(String(decoding: token, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    highWaterMark = CNPolicyHighWaterMark(issuedAt: policy.issuedAt, contentSHA256: policy.contentSHA256)
  }
}
