import Foundation

/// Why a signed enterprise policy, or the key that verifies policies, was refused.
public struct CNPolicyError: Error, Sendable, Hashable {
  /// The failure, with its details; `package` so that cases can be added without breaking
  /// a client's exhaustive `switch` (clients compare `code`).
  package let kind: Kind

  package init(_ kind: Kind) { self.kind = kind }

  /// What kind of failure this is: compare it (`error.code == .privateKeyGiven`); the list may grow.
  public var code: Code { kind.code }

  /// The kinds of policy and policy-key failure.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The code's name, as the static member that holds it is named.
    public let description: String
    private init(_ name: String) { description = name }
    /// A private key was given where the public verification key belongs.
    public static let privateKeyGiven = Code("privateKeyGiven")
    /// The key cannot be read (why).
    public static let malformedKey = Code("malformedKey")
    /// The key is not RSA or EC P-256/P-384/P-521 (what it is).
    public static let unsupportedKey = Code("unsupportedKey")
    /// RSA keys must have at least 2048 bits.
    public static let rsaKeyTooSmall = Code("rsaKeyTooSmall")
    /// An RSA key whose signatures prove nothing: a public exponent below 65537 or even, or a
    /// ROCA-weak modulus (why).
    public static let weakKey = Code("weakKey")
    /// The JWK says it is not for verifying signatures (`use`, `key_ops` or `alg`; why).
    public static let keyNotForSignatures = Code("keyNotForSignatures")
    /// The token's algorithm is not the one the key's JWK names in `alg`.
    public static let algorithmNotAllowedByKey = Code("algorithmNotAllowedByKey")
    /// The token is larger than `CNEnterprisePolicy.maximumTokenSize` bytes.
    public static let tooLarge = Code("tooLarge")
    /// The token is not three base64url segments (why).
    public static let malformedToken = Code("malformedToken")
    /// The protected header is not valid (why).
    public static let invalidHeader = Code("invalidHeader")
    /// `alg: none`: unsigned tokens are never accepted.
    public static let unsignedToken = Code("unsignedToken")
    /// An HMAC algorithm (HS256 …): a public key must never be used as a shared secret.
    public static let symmetricAlgorithm = Code("symmetricAlgorithm")
    /// An algorithm other than RS/PS/ES 256/384/512.
    public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
    /// The key's type or curve does not fit the algorithm.
    public static let keyDoesNotFitAlgorithm = Code("keyDoesNotFitAlgorithm")
    /// Critical header parameters this implementation does not understand.
    public static let unsupportedCriticalHeaders = Code("unsupportedCriticalHeaders")
    /// The signature does not verify with the policy-signing key.
    public static let invalidSignature = Code("invalidSignature")
    /// The payload is not valid (every problem, with its path).
    public static let invalidPayload = Code("invalidPayload")
    /// The policy expired at this time.
    public static let expired = Code("expired")
    /// The policy is not valid before this time.
    public static let notYetValid = Code("notYetValid")
    /// `applyEnterprisePolicy` was called while a policy is applied; use `refreshEnterprisePolicy`.
    public static let policyAlreadyApplied = Code("policyAlreadyApplied")
    /// `refreshEnterprisePolicy` was called with no policy applied.
    public static let noPolicyApplied = Code("noPolicyApplied")
    /// The new policy was issued before the applied one (a rollback).
    public static let olderThanAppliedPolicy = Code("olderThanAppliedPolicy")
    /// The policy was issued before the newest one this manager has accepted (a rollback, even
    /// after `signOut`).
    public static let olderThanAcceptedPolicy = Code("olderThanAcceptedPolicy")
    /// A policy with the same `iat` as one already accepted, but other content.
    public static let reissuedWithDifferentContent = Code("reissuedWithDifferentContent")
    /// The manager was created without a policy-signing key.
    public static let noSigningKey = Code("noSigningKey")
  }

  /// A private key was given where the public verification key belongs.
  public static let privateKeyGiven = CNPolicyError(.privateKeyGiven)
  /// The key cannot be read (why).
  public static func malformedKey(_ value: String) -> CNPolicyError { CNPolicyError(.malformedKey(value)) }
  /// The key is not RSA or EC P-256/P-384/P-521 (what it is).
  public static func unsupportedKey(_ value: String) -> CNPolicyError { CNPolicyError(.unsupportedKey(value)) }
  /// RSA keys must have at least 2048 bits.
  public static func rsaKeyTooSmall(bits: Int) -> CNPolicyError { CNPolicyError(.rsaKeyTooSmall(bits: bits)) }
  /// An RSA key whose signatures prove nothing: a public exponent below 65537 or even, or a
  /// ROCA-weak modulus (why).
  public static func weakKey(_ value: String) -> CNPolicyError { CNPolicyError(.weakKey(value)) }
  /// The JWK says it is not for verifying signatures (`use`, `key_ops` or `alg`; why).
  public static func keyNotForSignatures(_ value: String) -> CNPolicyError { CNPolicyError(.keyNotForSignatures(value)) }
  /// The token's algorithm is not the one the key's JWK names in `alg`.
  public static func algorithmNotAllowedByKey(algorithm: String, allowed: String) -> CNPolicyError {
    CNPolicyError(.algorithmNotAllowedByKey(algorithm: algorithm, allowed: allowed))
  }
  /// The token is larger than `CNEnterprisePolicy.maximumTokenSize` bytes.
  public static func tooLarge(_ value: Int) -> CNPolicyError { CNPolicyError(.tooLarge(value)) }
  /// The token is not three base64url segments (why).
  public static func malformedToken(_ value: String) -> CNPolicyError { CNPolicyError(.malformedToken(value)) }
  /// The protected header is not valid (why).
  public static func invalidHeader(_ value: String) -> CNPolicyError { CNPolicyError(.invalidHeader(value)) }
  /// `alg: none`: unsigned tokens are never accepted.
  public static let unsignedToken = CNPolicyError(.unsignedToken)
  /// An HMAC algorithm (HS256 …): a public key must never be used as a shared secret.
  public static func symmetricAlgorithm(_ value: String) -> CNPolicyError { CNPolicyError(.symmetricAlgorithm(value)) }
  /// An algorithm other than RS/PS/ES 256/384/512.
  public static func unsupportedAlgorithm(_ value: String) -> CNPolicyError { CNPolicyError(.unsupportedAlgorithm(value)) }
  /// The key's type or curve does not fit the algorithm.
  public static func keyDoesNotFitAlgorithm(algorithm: String, key: String) -> CNPolicyError {
    CNPolicyError(.keyDoesNotFitAlgorithm(algorithm: algorithm, key: key))
  }
  /// Critical header parameters this implementation does not understand.
  public static func unsupportedCriticalHeaders(_ value: [String]) -> CNPolicyError {
    CNPolicyError(.unsupportedCriticalHeaders(value))
  }
  /// The signature does not verify with the policy-signing key.
  public static let invalidSignature = CNPolicyError(.invalidSignature)
  /// The payload is not valid (every problem, with its path).
  public static func invalidPayload(_ value: [CNConfigurationProblem]) -> CNPolicyError { CNPolicyError(.invalidPayload(value)) }
  /// The policy expired at this time.
  public static func expired(_ value: Date) -> CNPolicyError { CNPolicyError(.expired(value)) }
  /// The policy is not valid before this time.
  public static func notYetValid(_ value: Date) -> CNPolicyError { CNPolicyError(.notYetValid(value)) }
  /// `applyEnterprisePolicy` was called while a policy is applied; use `refreshEnterprisePolicy`.
  public static let policyAlreadyApplied = CNPolicyError(.policyAlreadyApplied)
  /// `refreshEnterprisePolicy` was called with no policy applied.
  public static let noPolicyApplied = CNPolicyError(.noPolicyApplied)
  /// The new policy was issued before the applied one (a rollback).
  public static func olderThanAppliedPolicy(applied: Date, offered: Date) -> CNPolicyError {
    CNPolicyError(.olderThanAppliedPolicy(applied: applied, offered: offered))
  }
  /// The policy was issued before the newest one this manager has accepted (a rollback, even
  /// after `signOut`).
  public static func olderThanAcceptedPolicy(accepted: Date, offered: Date) -> CNPolicyError {
    CNPolicyError(.olderThanAcceptedPolicy(accepted: accepted, offered: offered))
  }
  /// A policy with the same `iat` as one already accepted, but other content.
  public static func reissuedWithDifferentContent(issuedAt: Date) -> CNPolicyError {
    CNPolicyError(.reissuedWithDifferentContent(issuedAt: issuedAt))
  }
  /// The manager was created without a policy-signing key.
  public static let noSigningKey = CNPolicyError(.noSigningKey)
}

extension CNPolicyError {
  /// Every failure with its details (the cases the public factories make).
  package enum Kind: Sendable, Hashable {
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

    /// The case's code.
    var code: Code {
      switch self {
      case .privateKeyGiven: .privateKeyGiven
      case .malformedKey: .malformedKey
      case .unsupportedKey: .unsupportedKey
      case .rsaKeyTooSmall: .rsaKeyTooSmall
      case .weakKey: .weakKey
      case .keyNotForSignatures: .keyNotForSignatures
      case .algorithmNotAllowedByKey: .algorithmNotAllowedByKey
      case .tooLarge: .tooLarge
      case .malformedToken: .malformedToken
      case .invalidHeader: .invalidHeader
      case .unsignedToken: .unsignedToken
      case .symmetricAlgorithm: .symmetricAlgorithm
      case .unsupportedAlgorithm: .unsupportedAlgorithm
      case .keyDoesNotFitAlgorithm: .keyDoesNotFitAlgorithm
      case .unsupportedCriticalHeaders: .unsupportedCriticalHeaders
      case .invalidSignature: .invalidSignature
      case .invalidPayload: .invalidPayload
      case .expired: .expired
      case .notYetValid: .notYetValid
      case .policyAlreadyApplied: .policyAlreadyApplied
      case .noPolicyApplied: .noPolicyApplied
      case .olderThanAppliedPolicy: .olderThanAppliedPolicy
      case .olderThanAcceptedPolicy: .olderThanAcceptedPolicy
      case .reissuedWithDifferentContent: .reissuedWithDifferentContent
      case .noSigningKey: .noSigningKey
      }
    }
  }
}

extension CNPolicyError: CustomStringConvertible {
  public var description: String {
    switch kind {
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
    default: nil
    }
  }

  /// The payload's problems, each with its path (`invalidPayload`); empty otherwise.
  public var problems: [CNConfigurationProblem] {
    if case .invalidPayload(let problems) = kind { problems } else { [] }
  }

  /// The time the refusal is about: when the policy expired or becomes valid, or when the
  /// refused policy was issued.
  public var date: Date? {
    switch kind {
    case .expired(let date), .notYetValid(let date), .reissuedWithDifferentContent(let date): date
    case .olderThanAppliedPolicy(_, let offered), .olderThanAcceptedPolicy(_, let offered): offered
    default: nil
    }
  }
}
