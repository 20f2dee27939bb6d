#if !CNPINNING_LINUX_BACKEND
import CryptoKit

/// SHA-256 through CryptoKit.
enum CryptoKitSHA256: SHA256Hashing {
  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    Array(SHA256.hash(data: bytes))
  }
}
#endif
