import Foundation

/// Why a signed enterprise policy, or the key that verifies policies, was refused.
public enum CNPolicyError: Error, Sendable, Equatable {
  // The key
  /// A private key was given where the public verification key belongs.
  case privateKeyGiven
  /// The key cannot be read (why).
  case malformedKey(String)
  /// The key is not RSA or EC P-256/P-384/P-521 (what it is).
  case unsupportedKey(String)
  /// RSA keys must have at least 2048 bits.
  case rsaKeyTooSmall(bits: Int)
  /// An RSA key whose signatures prove nothing: a public exponent below 65537 or even, or a
  /// ROCA-weak modulus (why).
  case weakKey(String)
  /// The JWK says it is not for verifying signatures (`use`, `key_ops` or `alg`; why).
  case keyNotForSignatures(String)
  /// The token's algorithm is not the one the key's JWK names in `alg`.
  case algorithmNotAllowedByKey(algorithm: String, allowed: String)

  // The token
  /// The token is larger than `CNEnterprisePolicy.maximumTokenSize` bytes.
  case tooLarge(Int)
  /// The token is not three base64url segments (why).
  case malformedToken(String)
  /// The protected header is not valid (why).
  case invalidHeader(String)
  /// `alg: none`: unsigned tokens are never accepted.
  case unsignedToken
  /// An HMAC algorithm (HS256 …): a public key must never be used as a shared secret.
  case symmetricAlgorithm(String)
  /// An algorithm other than RS/PS/ES 256/384/512.
  case unsupportedAlgorithm(String)
  /// The key's type or curve does not fit the algorithm.
  case keyDoesNotFitAlgorithm(algorithm: String, key: String)
  /// Critical header parameters this implementation does not understand.
  case unsupportedCriticalHeaders([String])
  /// The signature does not verify with the policy-signing key.
  case invalidSignature
  /// The payload is not valid (every problem, with its path).
  case invalidPayload([CNConfigurationProblem])
  /// The policy expired at this time.
  case expired(Date)
  /// The policy is not valid before this time.
  case notYetValid(Date)

  // The lifecycle
  /// `applyEnterprisePolicy` was called while a policy is applied; use `refreshEnterprisePolicy`.
  case policyAlreadyApplied
  /// `refreshEnterprisePolicy` was called with no policy applied.
  case noPolicyApplied
  /// The new policy was issued before the applied one (a rollback).
  case olderThanAppliedPolicy(applied: Date, offered: Date)
  /// The policy was issued before the newest one this manager has accepted (a rollback, even
  /// after `signOut`).
  case olderThanAcceptedPolicy(accepted: Date, offered: Date)
  /// A policy with the same `iat` as one already accepted, but other content.
  case reissuedWithDifferentContent(issuedAt: Date)
  /// The manager was created without a policy-signing key.
  case noSigningKey
}

extension CNPolicyError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .privateKeyGiven: return "a private key was given; the policy-signing key must be the public key"
    case .malformedKey(let why): return "the policy-signing key cannot be read: \(why)"
    case .unsupportedKey(let what): return "the policy-signing key is \(what); RSA or EC P-256/P-384/P-521 is required"
    case .rsaKeyTooSmall(let bits): return "the RSA policy-signing key has \(bits) bits; at least 2048 are required"
    case .weakKey(let why): return "the RSA policy-signing key is unsafe: \(why)"
    case .keyNotForSignatures(let why): return "the policy-signing key is not for verifying signatures: \(why)"
    case .algorithmNotAllowedByKey(let alg, let allowed):
      return "the policy is signed with \(alg), but the policy-signing key's JWK allows only \(allowed)"
    case .tooLarge(let size):
      return "the policy is \(size) bytes, more than the \(CNEnterprisePolicy.maximumTokenSize)-byte limit"
    case .malformedToken(let why): return "the policy is not a compact JWS: \(why)"
    case .invalidHeader(let why): return "the policy's JWS header is invalid: \(why)"
    case .unsignedToken: return "the policy is unsigned (alg \"none\"), which is never accepted"
    case .symmetricAlgorithm(let alg): return "the policy uses \(alg), an HMAC algorithm; only RS/PS/ES signatures are accepted"
    case .unsupportedAlgorithm(let alg): return "the policy uses the unsupported algorithm \"\(alg)\""
    case .keyDoesNotFitAlgorithm(let alg, let key): return "the policy is signed with \(alg), which a \(key) key cannot verify"
    case .unsupportedCriticalHeaders(let names):
      return "the policy marks unsupported header parameters as critical: \(names.joined(separator: ", "))"
    case .invalidSignature: return "the policy's signature does not verify with the policy-signing key"
    case .invalidPayload(let problems):
      return "the policy's payload is invalid: " + problems.map(\.description).joined(separator: "; ")
    case .expired(let date): return "the policy expired at \(Self.format(date))"
    case .notYetValid(let date): return "the policy is not valid before \(Self.format(date))"
    case .policyAlreadyApplied: return "a policy is already applied; refresh it instead"
    case .noPolicyApplied: return "no policy is applied to refresh"
    case .olderThanAppliedPolicy(let applied, let offered):
      return "the policy was issued at \(Self.format(offered)), before the applied one (\(Self.format(applied)))"
    case .olderThanAcceptedPolicy(let accepted, let offered):
      return
        "the policy was issued at \(Self.format(offered)), before one already accepted (\(Self.format(accepted))); older policies are never accepted again, signOut or not"
    case .reissuedWithDifferentContent(let issuedAt):
      return
        "a different policy with the same issue time (\(Self.format(issuedAt))) was already accepted; a new policy needs a later iat"
    case .noSigningKey: return "this manager has no policy-signing key"
    }
  }

  private static func format(_ date: Date) -> String { ISO8601.string(from: date) }
}
