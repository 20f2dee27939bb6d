#if !CNPINNING_LINUX_BACKEND
import Foundation
import Security

/// JWS signature verification through the Security framework.
enum SecuritySignatures: SignatureVerifying {
  static func canUse(subjectPublicKeyInfo der: [UInt8]) -> Bool { key(der) != nil }

  static func verify(_ algorithm: CNJWSAlgorithm, key der: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
    guard let key = key(der) else { return false }
    let secAlgorithm: SecKeyAlgorithm
    var candidates = [signature]
    switch algorithm {
    case .rs256: secAlgorithm = .rsaSignatureMessagePKCS1v15SHA256
    case .rs384: secAlgorithm = .rsaSignatureMessagePKCS1v15SHA384
    case .rs512: secAlgorithm = .rsaSignatureMessagePKCS1v15SHA512
    case .ps256: secAlgorithm = .rsaSignatureMessagePSSSHA256
    case .ps384: secAlgorithm = .rsaSignatureMessagePSSSHA384
    case .ps512: secAlgorithm = .rsaSignatureMessagePSSSHA512
    case .es256, .es384, .es512:
      secAlgorithm =
        algorithm == .es256
        ? .ecdsaSignatureMessageX962SHA256
        : algorithm == .es384 ? .ecdsaSignatureMessageX962SHA384 : .ecdsaSignatureMessageX962SHA512
      // Security wants DER (X9.62); JOSE sends raw r ‖ s.
      if case .ecdsa(let curve) = algorithm.family,
        let der = JOSESignature.derFromRaw(signature, coordinateSize: curve.coordinateSize)
      {
        candidates.insert(der, at: 0)
      }
    }
    return candidates.contains { candidate in
      SecKeyVerifySignature(key, secAlgorithm, Data(message) as CFData, Data(candidate) as CFData, nil)
    }
  }

  /// SecKeyCreateWithData takes the key inside the SPKI: PKCS #1 RSAPublicKey for RSA, the X9.63
  /// point for EC.
  private static func key(_ der: [UInt8]) -> SecKey? {
    guard let spki = try? der.withUnsafeBufferPointer({ bytes throws(CNCertificateError) in try CNPublicKeyKind.read(bytes) })
    else { return nil }
    let bits = Array(der[spki.key])
    let attributes: [CFString: Any]
    switch spki.kind {
    case .rsa(let size):
      attributes = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic, kSecAttrKeySizeInBits: size]
    case .ec(let curve) where curve != .other:
      attributes = [
        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic,
        kSecAttrKeySizeInBits: curve.bits,
      ]
    default:
      return nil
    }
    return SecKeyCreateWithData(Data(bits) as CFData, attributes as CFDictionary, nil)
  }
}

/// Policy signing needs OpenSSL; apps only verify.
enum UnavailableSigning: PolicySigning {
  static func sign(_ algorithm: CNJWSAlgorithm, privateKeyPEM: String, message: [UInt8]) throws(CNPolicyError) -> [UInt8] {
    throw .unsupportedKey("a signing key on this platform (policy signing needs the OpenSSL backend)")
  }

  static func publicKeyInfo(privateKeyPEM: String) throws(CNPolicyError) -> [UInt8] {
    throw .unsupportedKey("a signing key on this platform (policy signing needs the OpenSSL backend)")
  }
}
#endif
