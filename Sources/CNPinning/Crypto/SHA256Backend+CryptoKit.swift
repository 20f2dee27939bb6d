#if !canImport(COpenSSL) && canImport(CryptoKit)
  import CryptoKit

  /// SHA-256 through CryptoKit.
  enum SHA256Backend {
    static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
      Array(SHA256.hash(data: bytes))
    }
  }
#endif
