#if CNPINNING_LINUX_BACKEND
internal import COpenSSL

/// JWS signature verification and signing through OpenSSL's EVP interface.
enum OpenSSLSignatures: SignatureVerifying, PolicySigning {
  static func canUse(subjectPublicKeyInfo der: [UInt8]) -> Bool {
    PublicKeyCache.shared.withKey(der) { _ in true } ?? false
  }

  static func verify(_ algorithm: CNJWSAlgorithm, key der: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
    defer { ERR_clear_error() }
    let candidates: [[UInt8]]
    switch algorithm.family {
    case .ecdsa(let curve):
      // JOSE's raw r ‖ s, or DER as CNPinning-Android and the seed's signer write it.
      candidates = [JOSESignature.derFromRaw(signature, coordinateSize: curve.coordinateSize), signature].compactMap { $0 }
    case .rsaPKCS1, .rsaPSS:
      candidates = [signature]
    }
    return PublicKeyCache.shared.withKey(der) { key in
      candidates.contains { verifyOnce(algorithm, key: key, message: message, signature: $0) }
    } ?? false
  }

  private static func verifyOnce(_ algorithm: CNJWSAlgorithm, key: OpaquePointer, message: [UInt8], signature: [UInt8])
    -> Bool
  {
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    var keyContext: OpaquePointer? = nil
    guard EVP_DigestVerifyInit(context, &keyContext, digest(algorithm), nil, key) == 1 else { return false }
    if case .rsaPSS = algorithm.family {
      guard let keyContext, EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
        EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
      else { return false }
    }
    return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
  }

  /// Signs with a PEM private key; ECDSA signatures come out in JOSE's raw form.
  static func sign(_ algorithm: CNJWSAlgorithm, privateKeyPEM: String, message: [UInt8]) throws(CNPolicyError) -> [UInt8] {
    let signature = try withPrivateKey(privateKeyPEM) { key throws(CNPolicyError) -> [UInt8] in
      guard let context = EVP_MD_CTX_new() else { throw .malformedKey("out of memory") }
      defer { EVP_MD_CTX_free(context) }
      var keyContext: OpaquePointer? = nil
      guard EVP_DigestSignInit(context, &keyContext, digest(algorithm), nil, key) == 1 else {
        throw .malformedKey("the key cannot sign with \(algorithm)")
      }
      if case .rsaPSS = algorithm.family {
        guard let keyContext, EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
          EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
        else { throw .malformedKey("the key cannot sign with \(algorithm)") }
      }
      var length = 0
      guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw .malformedKey("signing failed") }
      var signature = [UInt8](repeating: 0, count: length)
      guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
        throw .malformedKey("signing failed")
      }
      signature.removeSubrange(length...)
      return signature
    }
    guard case .ecdsa(let curve) = algorithm.family else { return signature }
    guard let raw = JOSESignature.rawFromDER(signature, coordinateSize: curve.coordinateSize) else {
      throw .malformedKey("OpenSSL returned an unexpected ECDSA signature")
    }
    return raw
  }

  /// The SubjectPublicKeyInfo of a PEM private key.
  static func publicKeyInfo(privateKeyPEM: String) throws(CNPolicyError) -> [UInt8] {
    try withPrivateKey(privateKeyPEM) { key throws(CNPolicyError) -> [UInt8] in
      var output: UnsafeMutablePointer<UInt8>? = nil
      let length = i2d_PUBKEY(key, &output)
      guard length > 0, let output else { throw .malformedKey("cannot encode the public key") }
      defer { CRYPTO_free(output, #fileID, #line) }
      return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
  }

  /// Reads a PEM private key and runs `body` with it. The BIO reads the text in place, so the
  /// bytes are kept alive for the whole read.
  private static func withPrivateKey<Result>(
    _ pem: String, _ body: (OpaquePointer) throws(CNPolicyError) -> Result
  ) throws(CNPolicyError) -> Result {
    defer { ERR_clear_error() }
    let bytes = Array(pem.utf8)
    let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
      guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
    }
    guard let key else { throw .malformedKey("not a PEM private key") }
    defer { EVP_PKEY_free(key) }
    return try body(key)
  }

  private static func digest(_ algorithm: CNJWSAlgorithm) -> OpaquePointer? {
    switch algorithm.digestBits {
    case 256: return EVP_sha256()
    case 384: return EVP_sha384()
    default: return EVP_sha512()
    }
  }
}
#endif
