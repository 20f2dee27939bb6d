/// The JWS signature algorithms an enterprise policy may use (RFC 7518).
public enum CNJWSAlgorithm: String, Sendable, CaseIterable, CustomStringConvertible {
  /// RSASSA-PKCS1-v1_5 with SHA-256.
  case rs256 = "RS256"
  /// RSASSA-PKCS1-v1_5 with SHA-384.
  case rs384 = "RS384"
  /// RSASSA-PKCS1-v1_5 with SHA-512.
  case rs512 = "RS512"
  /// RSASSA-PSS with SHA-256 (MGF1 with SHA-256).
  case ps256 = "PS256"
  /// RSASSA-PSS with SHA-384 (MGF1 with SHA-384).
  case ps384 = "PS384"
  /// RSASSA-PSS with SHA-512 (MGF1 with SHA-512).
  case ps512 = "PS512"
  /// ECDSA on P-256 with SHA-256.
  case es256 = "ES256"
  /// ECDSA on P-384 with SHA-384.
  case es384 = "ES384"
  /// ECDSA on P-521 with SHA-512.
  case es512 = "ES512"

  /// RFC 7515 names; the lower-case spelling the seed's own signer writes is accepted too.
  public init?(headerValue: String) {
    guard let algorithm = CNJWSAlgorithm(rawValue: headerValue) ?? CNJWSAlgorithm(rawValue: headerValue.uppercased()),
      headerValue == algorithm.rawValue || headerValue == algorithm.rawValue.lowercased()
    else { return nil }
    self = algorithm
  }

  public var description: String { rawValue }

  /// The digest size in bits (256, 384 or 512).
  public var digestBits: Int {
    switch self {
    case .rs256, .ps256, .es256: return 256
    case .rs384, .ps384, .es384: return 384
    case .rs512, .ps512, .es512: return 512
    }
  }

  enum Family {
    case rsaPKCS1
    case rsaPSS
    case ecdsa(CNPublicKeyKind.Curve)
  }

  var family: Family {
    switch self {
    case .rs256, .rs384, .rs512: return .rsaPKCS1
    case .ps256, .ps384, .ps512: return .rsaPSS
    case .es256: return .ecdsa(.p256)
    case .es384: return .ecdsa(.p384)
    case .es512: return .ecdsa(.p521)
    }
  }

  /// Whether a key of `kind` is the kind this algorithm needs.
  func fits(_ kind: CNPublicKeyKind) -> Bool {
    switch (family, kind) {
    case (.rsaPKCS1, .rsa), (.rsaPSS, .rsa): return true
    case (.ecdsa(let needed), .ec(let curve)): return needed == curve
    default: return false
    }
  }

  /// The algorithm a key signs with by default: RS256 for RSA, ES256/384/512 by curve.
  static func defaultAlgorithm(for kind: CNPublicKeyKind) -> CNJWSAlgorithm? {
    switch kind {
    case .rsa: return .rs256
    case .ec(.p256): return .es256
    case .ec(.p384): return .es384
    case .ec(.p521): return .es512
    default: return nil
    }
  }
}
