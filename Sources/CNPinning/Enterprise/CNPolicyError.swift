import Foundation

extension CNPolicyError: CustomStringConvertible {
  public var description: String {
    switch kind {
    case .privateKeyGiven: return "a private key was given; the policy-signing key must be the public key"
    case .malformedKey(let why): return "the policy-signing key cannot be read: \(why)"
    case .unsupportedKey(let what): return "the policy-signing key is \(what); RSA or EC P-256/P-384/P-521 is required"
    case .rsaKeyTooSmall(let bits): return "the RSA policy-signing key has \(bits) bits; at least 2048 are required"
    case .rsaKeyTooLarge(let bits):
      return
        "the RSA policy-signing key has \(bits) bits; at most \(CNPolicySigningKey.maximumRSABits) can verify a policy (OpenSSL checks no signature with a larger key)"
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
    case .issuedBeforeSignOut(let signedOut, let offered):
      return
        "the policy was issued at \(Self.format(offered)), not after the one signed out of (\(Self.format(signedOut))); a sign-out is never undone by an earlier policy"
    case .audienceMismatch(let expected?, let found):
      return found.isEmpty
        ? "the policy names no audience (aud), and the app expects \(VisibleText.quoted(expected))"
        : "the policy is for \(found.map { VisibleText.quoted($0) }.joined(separator: ", ")), not for the app's audience \(VisibleText.quoted(expected))"
    case .audienceMismatch(nil, let found):
      return
        "the policy is for the audience \(found.map { VisibleText.quoted($0) }.joined(separator: ", ")), and the app names none (CNEnterpriseOptions.audience)"
    case .changesNoHost(let hosts):
      return
        "the policy changes no host the app pins: \(hosts.map { VisibleText.quoted($0) }.joined(separator: ", ")) \(hosts.count == 1 ? "is" : "are") not pinned, or only the authentication host, which a policy never changes"
    case .policyStoreUnusable(let path, let reason):
      return "the policy store \(VisibleText.quoted(path)) cannot be used: \(reason)"
    case .noSigningKey: return "this manager has no policy-signing key"
    case .notPinned: return "the host has no pins; the app decides what to do"
    case .notServerTrust: return "not a server-trust challenge; the app answers it"
    }
  }

  private static func format(_ date: Date) -> String { ISO8601.string(from: date) }

  /// Matches a thrown error against a value, so that seed code can `catch CNPolicyError.notPinned`
  /// (the seed's `catch CNPinningError.notPinned`).
  public static func ~= (pattern: CNPolicyError, error: any Error) -> Bool {
    (error as? CNPolicyError) == pattern
  }
}

/// The seed library's name for the error its async `validate(challenge:)` throws: the policy
/// error's `notPinned` and `notServerTrust`. Kept so that seed code builds unchanged.
@available(*, deprecated, renamed: "CNPolicyError")
public typealias CNPinningError = CNPolicyError

extension CNPolicyError {
  /// Why the key or token was refused, when the code alone does not say: the key's or header's
  /// defect, or the algorithm named.
  public var reason: String? {
    switch kind {
    case .malformedKey(let why), .unsupportedKey(let why), .weakKey(let why), .keyNotForSignatures(let why),
      .malformedToken(let why), .invalidHeader(let why), .symmetricAlgorithm(let why), .unsupportedAlgorithm(let why):
      why
    case .algorithmNotAllowedByKey(let algorithm, let allowed): "\(algorithm), the key allows \(allowed)"
    case .keyDoesNotFitAlgorithm(let algorithm, let key): "\(algorithm) with a \(key) key"
    case .unsupportedCriticalHeaders(let names): names.joined(separator: ", ")
    case .policyStoreUnusable(_, let reason): reason
    default: nil
    }
  }

  /// The payload's problems, each with its path (`invalidPayload`); empty otherwise.
  public var problems: [CNConfigurationError.Problem] {
    if case .invalidPayload(let problems) = kind { problems } else { [] }
  }

  /// The time the refusal is about: when the policy expired or becomes valid, or when the
  /// refused policy was issued.
  public var date: Date? {
    switch kind {
    case .expired(let date), .notYetValid(let date), .reissuedWithDifferentContent(let date): date
    case .olderThanAppliedPolicy(_, let offered), .olderThanAcceptedPolicy(_, let offered),
      .issuedBeforeSignOut(_, let offered):
      offered
    default: nil
    }
  }
}
