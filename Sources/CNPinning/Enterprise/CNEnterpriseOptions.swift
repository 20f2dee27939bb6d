import Foundation

/// What a manager needs to accept enterprise policies: the login host a policy is fetched from
/// (which no policy ever affects), the key every policy must be signed with, and how far a
/// policy's validity window is widened on each side for clock skew.
///
/// <!-- snippet: Snippets/EnterpriseOptions.swift -->
/// ```swift
/// let manager = try CNPinningManager(
///   contentsOf: pinsURL,
///   enterprise: try CNEnterpriseOptions(authenticationHost: "auth.example.com", policySigningKey: key))
/// ```
public struct CNEnterpriseOptions: Sendable {
  /// The login host, never affected by a policy.
  public let authenticationHost: String
  /// The key every policy must verify against.
  public let policySigningKey: CNPolicySigningKey
  /// Seconds (0–300) by which a policy's window is widened on each side.
  public let clockSkew: TimeInterval
  /// The audience every policy must name in its `aud` claim (the app's identifier, say); nil:
  /// a policy must name none. A key that signs policies for several apps keeps one app's policy
  /// from applying to another's only with an audience.
  public let audience: String?
  let host: HostName

  /// Throws ``CNConfigurationError`` for an ``authenticationHost`` that is not a host name, a
  /// ``clockSkew`` outside 0–300 seconds and an empty `audience`.
  public init(
    authenticationHost: String, policySigningKey: CNPolicySigningKey, clockSkew: TimeInterval = 0, audience: String? = nil
  ) throws {
    switch HostName.parse(authenticationHost) {
    case .success(let host): self.host = host
    case .failure(let invalid):
      throw CNConfigurationError(
        problems: [.invalidHost(authenticationHost, reason: invalid.reason).at("authenticationHost")])
    }
    guard (0...300).contains(clockSkew) else {
      throw CNConfigurationError(problems: [.clockSkewOutOfRange(clockSkew).at("clockSkew")])
    }
    if let audience, audience.isEmpty {
      throw CNConfigurationError(
        problems: [.invalidValue(audience, reason: "an audience is a non-empty string").at("audience")])
    }
    self.authenticationHost = authenticationHost
    self.policySigningKey = policySigningKey
    self.clockSkew = clockSkew
    self.audience = audience
  }
}
