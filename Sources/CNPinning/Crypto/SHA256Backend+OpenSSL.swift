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
