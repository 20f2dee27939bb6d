import Foundation

/// Why a policy does not apply: a signed enterprise policy, or the key that verifies policies,
/// was refused, or the pins leave a challenge to the app (``notPinned``, ``notServerTrust``).
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
    /// RSA keys may have at most 16,384 bits, the most OpenSSL verifies a signature with.
    public static let rsaKeyTooLarge = Code("rsaKeyTooLarge")
    /// An RSA key whose signatures prove nothing: a public exponent below 65537 or even, or a
    /// ROCA-weak modulus (why).
    public static let weakKey = Code("weakKey")
    /// The JWK says it is not for verifying signatures (`use`, `key_ops` or `alg`; why).
    public static let keyNotForSignatures = Code("keyNotForSignatures")
    /// The token's algorithm is not the one the key's JWK names in `alg`.
    public static let algorithmNotAllowedByKey = Code("algorithmNotAllowedByKey")
    /// The token is larger than ``CNEnterprisePolicy/maximumTokenSize`` bytes.
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
    /// A policy issued at or before the one signed out of (`signOut`): it never applies again.
    public static let issuedBeforeSignOut = Code("issuedBeforeSignOut")
    /// The policy's audience (`aud`) is not the one the app expects, or one of them is missing.
    public static let audienceMismatch = Code("audienceMismatch")
    /// The policy changes no host the app pins: its hosts are not pinned, or only the
    /// authentication host is, which a policy never changes.
    public static let changesNoHost = Code("changesNoHost")
    /// The policy store's file cannot be read, is not one, or cannot be written (where and why).
    public static let policyStoreUnusable = Code("policyStoreUnusable")
    /// The manager was created without a policy-signing key.
    public static let noSigningKey = Code("noSigningKey")
    /// The async `validate(challenge:)` leaves a challenge for a host without pins to the app (the
    /// seed's `CNPinningError.notPinned`).
    public static let notPinned = Code("notPinned")
    /// The async `validateServerTrust(challenge:)` leaves a challenge that is not about server trust
    /// (a client certificate, HTTP authentication, NTLM, Negotiate) to the app.
    public static let notServerTrust = Code("notServerTrust")
  }

  /// A private key was given where the public verification key belongs.
  public static let privateKeyGiven = CNPolicyError(.privateKeyGiven)
  /// The key cannot be read (why).
  public static func malformedKey(_ value: String) -> CNPolicyError { CNPolicyError(.malformedKey(value)) }
  /// `malformedKey` for a key the platform could not export, with its reason when it gave one.
  package static func keyNotExported(_ reason: String?) -> CNPolicyError {
    .malformedKey("Security cannot export the key: \(reason ?? "no reason given")")
  }
  /// The key is not RSA or EC P-256/P-384/P-521 (what it is).
  public static func unsupportedKey(_ value: String) -> CNPolicyError { CNPolicyError(.unsupportedKey(value)) }
  /// RSA keys must have at least 2048 bits.
  public static func rsaKeyTooSmall(bits: Int) -> CNPolicyError { CNPolicyError(.rsaKeyTooSmall(bits: bits)) }
  /// RSA keys may have at most 16,384 bits, the most OpenSSL verifies a signature with.
  public static func rsaKeyTooLarge(bits: Int) -> CNPolicyError { CNPolicyError(.rsaKeyTooLarge(bits: bits)) }
  /// An RSA key whose signatures prove nothing: a public exponent below 65537 or even, or a
  /// ROCA-weak modulus (why).
  public static func weakKey(_ value: String) -> CNPolicyError { CNPolicyError(.weakKey(value)) }
  /// The JWK says it is not for verifying signatures (`use`, `key_ops` or `alg`; why).
  public static func keyNotForSignatures(_ value: String) -> CNPolicyError { CNPolicyError(.keyNotForSignatures(value)) }
  /// The token's algorithm is not the one the key's JWK names in `alg`.
  public static func algorithmNotAllowedByKey(algorithm: String, allowed: String) -> CNPolicyError {
    CNPolicyError(.algorithmNotAllowedByKey(algorithm: algorithm, allowed: allowed))
  }
  /// The token is larger than ``CNEnterprisePolicy/maximumTokenSize`` bytes.
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
  public static func invalidPayload(_ value: [CNConfigurationError.Problem]) -> CNPolicyError {
    CNPolicyError(.invalidPayload(value))
  }
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
  /// A policy issued at or before the one signed out of.
  public static func issuedBeforeSignOut(signedOut: Date, offered: Date) -> CNPolicyError {
    CNPolicyError(.issuedBeforeSignOut(signedOut: signedOut, offered: offered))
  }
  /// The policy's audience is not the app's (`expected` nil: the app names none).
  public static func audienceMismatch(expected: String?, found: [String]) -> CNPolicyError {
    CNPolicyError(.audienceMismatch(expected: expected, found: found))
  }
  /// The policy changes no host the app pins (`hosts`: the hosts it names, as written).
  public static func changesNoHost(_ hosts: [String]) -> CNPolicyError { CNPolicyError(.changesNoHost(hosts)) }
  /// The policy store's file cannot be used (where and why).
  public static func policyStoreUnusable(path: String, reason: String) -> CNPolicyError {
    CNPolicyError(.policyStoreUnusable(path: path, reason: reason))
  }
  /// The manager was created without a policy-signing key.
  public static let noSigningKey = CNPolicyError(.noSigningKey)
  /// The async `validate(challenge:)` leaves a challenge for a host without pins to the app (the
  /// seed's `CNPinningError.notPinned`).
  public static let notPinned = CNPolicyError(.notPinned)
  /// The async `validateServerTrust(challenge:)` leaves a challenge that is not about server trust
  /// (a client certificate, HTTP authentication, NTLM, Negotiate) to the app.
  public static let notServerTrust = CNPolicyError(.notServerTrust)

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
    /// RSA keys may have at most 16,384 bits, the most OpenSSL verifies a signature with.
    case rsaKeyTooLarge(bits: Int)
    /// An RSA key whose signatures prove nothing: a public exponent below 65537 or even, or a
    /// ROCA-weak modulus (why).
    case weakKey(String)
    /// The JWK says it is not for verifying signatures (`use`, `key_ops` or `alg`; why).
    case keyNotForSignatures(String)
    /// The token's algorithm is not the one the key's JWK names in `alg`.
    case algorithmNotAllowedByKey(algorithm: String, allowed: String)
    /// The token is larger than ``CNEnterprisePolicy/maximumTokenSize`` bytes.
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
    case invalidPayload([CNConfigurationError.Problem])
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
    /// A policy issued at or before the one signed out of.
    case issuedBeforeSignOut(signedOut: Date, offered: Date)
    /// The policy's audience is not the app's.
    case audienceMismatch(expected: String?, found: [String])
    /// The policy changes no host the app pins.
    case changesNoHost([String])
    case policyStoreUnusable(path: String, reason: String)
    /// The manager was created without a policy-signing key.
    case noSigningKey
    /// The async `validate(challenge:)` leaves a challenge for a host without pins to the app (the
    /// seed's `CNPinningError.notPinned`).
    case notPinned
    /// The async `validateServerTrust(challenge:)` leaves a challenge that is not about server trust
    /// (a client certificate, HTTP authentication, NTLM, Negotiate) to the app.
    case notServerTrust

    /// The case's code.
    package var code: Code {
      switch self {
      case .privateKeyGiven: .privateKeyGiven
      case .malformedKey: .malformedKey
      case .unsupportedKey: .unsupportedKey
      case .rsaKeyTooSmall: .rsaKeyTooSmall
      case .rsaKeyTooLarge: .rsaKeyTooLarge
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
      case .issuedBeforeSignOut: .issuedBeforeSignOut
      case .audienceMismatch: .audienceMismatch
      case .changesNoHost: .changesNoHost
      case .policyStoreUnusable: .policyStoreUnusable
      case .noSigningKey: .noSigningKey
      case .notPinned: .notPinned
      case .notServerTrust: .notServerTrust
      }
    }
  }
}
