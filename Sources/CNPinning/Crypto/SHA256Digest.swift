/// SHA-256, from the platform's crypto backend: OpenSSL on Linux, CryptoKit on Apple platforms.
enum SHA256Digest {
  static let byteCount = 32

  static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    SHA256Backend.hash(bytes)
  }
}
