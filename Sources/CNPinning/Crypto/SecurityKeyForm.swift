/// A public key as Apple's Security framework takes it (`SecKeyCreateWithData`): its type, its
/// size in bits and the key inside the SubjectPublicKeyInfo (PKCS #1 `RSAPublicKey` for RSA, the
/// X9.63 point for EC). Platform-neutral, tested on Linux; the Apple backend only hands it on.
package struct SecurityKeyForm: Equatable, Sendable {
  package let type: CNPolicySigningKey.ExternalKeyType
  package let bits: Int
  package let key: [UInt8]

  /// nil for an SPKI that cannot be read, or a key Security is not asked to take here (an
  /// unknown curve, Ed25519, another algorithm).
  package init?(subjectPublicKeyInfo der: [UInt8]) {
    guard
      let spki = try? der.withUnsafeBufferPointer({ bytes throws(CNCertificateError) in try CNPublicKeyKind.read(bytes) })
    else { return nil }
    switch spki.kind {
    case .rsa(let size): (type, bits) = (.rsa, size)
    case .ec(let curve) where curve != .other: (type, bits) = (.ellipticCurve, curve.bits)
    default: return nil
    }
    key = Array(der[spki.key])
  }
}

extension JOSESignature {
  /// The forms of a JWS signature to try with a verifier that takes ECDSA signatures as DER
  /// (Security): for ES256/384/512 the DER form of JOSE's raw r ‖ s first, then the bytes as
  /// given; for the others the bytes as given.
  static func derCandidates(_ signature: [UInt8], for algorithm: CNJWSAlgorithm) -> [[UInt8]] {
    guard case .ecdsa(let curve) = algorithm.family,
      let der = derFromRaw(signature, coordinateSize: curve.coordinateSize)
    else { return [signature] }
    return [der, signature]
  }
}
