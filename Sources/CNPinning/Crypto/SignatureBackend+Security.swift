#if !CNPINNING_LINUX_BACKEND
import Foundation
import Security

/// JWS signature verification through the Security framework.
enum SecuritySignatures: SignatureVerifying {
  static func canUse(subjectPublicKeyInfo der: [UInt8]) -> Bool { key(der) != nil }

  static func verify(_ algorithm: CNJWSAlgorithm, key der: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
    guard let key = key(der) else { return false }
    let secAlgorithm: SecKeyAlgorithm
    switch algorithm {
    case .rs256: secAlgorithm = .rsaSignatureMessagePKCS1v15SHA256
    case .rs384: secAlgorithm = .rsaSignatureMessagePKCS1v15SHA384
    case .rs512: secAlgorithm = .rsaSignatureMessagePKCS1v15SHA512
    case .ps256: secAlgorithm = .rsaSignatureMessagePSSSHA256
    case .ps384: secAlgorithm = .rsaSignatureMessagePSSSHA384
    case .ps512: secAlgorithm = .rsaSignatureMessagePSSSHA512
    case .es256: secAlgorithm = .ecdsaSignatureMessageX962SHA256
    case .es384: secAlgorithm = .ecdsaSignatureMessageX962SHA384
    case .es512: secAlgorithm = .ecdsaSignatureMessageX962SHA512
    }
    // Security wants DER (X9.62); JOSE sends raw r ‖ s.
    return JOSESignature.derCandidates(signature, for: algorithm).contains { candidate in
      SecKeyVerifySignature(key, secAlgorithm, Data(message) as CFData, Data(candidate) as CFData, nil)
    }
  }

  /// The key as Security takes it (`SecurityKeyForm`, shared).
  private static func key(_ der: [UInt8]) -> SecKey? {
    guard let form = SecurityKeyForm(subjectPublicKeyInfo: der) else { return nil }
    let attributes: [CFString: Any] = [
      kSecAttrKeyType: form.type.securityKeyType, kSecAttrKeyClass: kSecAttrKeyClassPublic,
      kSecAttrKeySizeInBits: form.bits,
    ]
    return SecKeyCreateWithData(Data(form.key) as CFData, attributes as CFDictionary, nil)
  }
}

extension CNPolicySigningKey.ExternalKeyType {
  /// Security's name for the type (`kSecAttrKeyType`).
  var securityKeyType: CFString {
    switch self {
    case .rsa: kSecAttrKeyTypeRSA
    case .ellipticCurve: kSecAttrKeyTypeECSECPrimeRandom
    }
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
