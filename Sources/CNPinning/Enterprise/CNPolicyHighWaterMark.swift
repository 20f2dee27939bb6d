import Foundation

/// The newest enterprise policy a manager has accepted: its issue time and payload hash, and
/// whether it was signed out of. It only rises, and survives `signOut`, so an older policy (a
/// stolen one still inside its window) is never accepted again; after `signOut` neither is the
/// policy signed out of, whoever serves it. Persist it (it is `Codable`) and give it back with
/// `raisePolicyHighWaterMark(to:)` to keep that promise across launches (a `CNPolicyStore` does).
public struct CNPolicyHighWaterMark: Sendable, Equatable, Codable {
  /// The `iat` of the newest policy accepted.
  public let issuedAt: Date
  /// SHA-256 of the policy's content in canonical form (``CNEnterprisePolicy/contentSHA256``).
  public let contentSHA256: String
  /// Whether the app signed out of it: then no policy issued at or before ``issuedAt`` applies.
  public let signedOut: Bool

  /// A mark for a policy issued at ``issuedAt`` whose payload has this SHA-256 (base64), signed
  /// out of or not.
  public init(issuedAt: Date, contentSHA256: String, signedOut: Bool = false) {
    self.issuedAt = issuedAt
    self.contentSHA256 = contentSHA256
    self.signedOut = signedOut
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    issuedAt = try container.decode(Date.self, forKey: .issuedAt)
    contentSHA256 = try container.decode(String.self, forKey: .contentSHA256)
    // A store written before sign-outs were kept has no such key.
    signedOut = try container.decodeIfPresent(Bool.self, forKey: .signedOut) ?? false
  }

  /// Whether this mark is above `other`: a later `iat`, or the same one signed out of.
  func isAbove(_ other: CNPolicyHighWaterMark?) -> Bool {
    guard let other else { return true }
    return issuedAt > other.issuedAt || (issuedAt == other.issuedAt && signedOut && !other.signedOut)
  }

  /// The mark after signing out of the policy it marks.
  var signingOut: CNPolicyHighWaterMark {
    CNPolicyHighWaterMark(issuedAt: issuedAt, contentSHA256: contentSHA256, signedOut: true)
  }

  /// Why `policy` may not be accepted once this mark is reached; nil when it may.
  func refusal(of policy: CNEnterprisePolicy) -> CNPolicyError? {
    if signedOut, policy.issuedAt <= issuedAt { return .issuedBeforeSignOut(signedOut: issuedAt, offered: policy.issuedAt) }
    if policy.issuedAt < issuedAt { return .olderThanAcceptedPolicy(accepted: issuedAt, offered: policy.issuedAt) }
    if policy.issuedAt == issuedAt, policy.contentSHA256 != contentSHA256 {
      return .reissuedWithDifferentContent(issuedAt: issuedAt)
    }
    return nil
  }
}
