/// SHA-256, from the platform's crypto backend: OpenSSL on Linux, CryptoKit on Apple platforms.
enum SHA256Digest {
  static let byteCount = 32

  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    SHA256Backend.hash(bytes)
  }
}

/// A SHA-256 implementation.
protocol SHA256Hashing {
  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8]
}

/// JWS signature verification.
protocol SignatureVerifying {
  /// Whether the platform can verify with this SubjectPublicKeyInfo.
  static func canUse(subjectPublicKeyInfo der: [UInt8]) -> Bool
  /// Whether `signature` (JOSE raw r‖s or DER for ECDSA) signs `message` under `key`.
  static func verify(_ algorithm: CNJWSAlgorithm, key der: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool
}

/// JWS signing, for tools (only where a backend offers it).
protocol PolicySigning {
  static func sign(_ algorithm: CNJWSAlgorithm, privateKeyPEM: String, message: [UInt8]) throws(CNPolicyError) -> [UInt8]
  static func publicKeyInfo(privateKeyPEM: String) throws(CNPolicyError) -> [UInt8]
}

// One typealias per API chooses the backend.
#if CNPINNING_LINUX_BACKEND
typealias SHA256Backend = OpenSSLSHA256
typealias SignatureBackend = OpenSSLSignatures
typealias SigningBackend = OpenSSLSignatures
#else
typealias SHA256Backend = CryptoKitSHA256
typealias SignatureBackend = SecuritySignatures
typealias SigningBackend = UnavailableSigning
#endif

#if CNPINNING_LINUX_BACKEND
internal import COpenSSL

/// SHA-256 through OpenSSL's one-shot EVP digest.
enum OpenSSLSHA256: SHA256Hashing {
  nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
    var length: UInt32 = 0
    let status = digest.withUnsafeMutableBufferPointer { output in
      EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, algorithm, nil)
    }
    precondition(status == 1 && length == 32, "OpenSSL's SHA-256 failed")
    return digest
  }
}
#endif

#if !CNPINNING_LINUX_BACKEND
import CryptoKit

/// SHA-256 through CryptoKit.
enum CryptoKitSHA256: SHA256Hashing {
  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    Array(SHA256.hash(data: bytes))
  }
}
#endif
