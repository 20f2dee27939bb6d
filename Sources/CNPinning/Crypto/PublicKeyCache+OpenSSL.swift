#if CNPINNING_LINUX_BACKEND
internal import COpenSSL

/// The few public keys a process verifies with, parsed once: OpenSSL 3 reads a
/// SubjectPublicKeyInfo through its decoder framework, which costs more than the signature
/// check itself (over half of the policy fuzzer's time). The cache owns one reference to each
/// key; `withKey` lends the body another, released when the body returns, so a key evicted
/// meanwhile stays valid for whoever is using it. EVP_PKEY is safe to verify with from several
/// threads at once.
final class PublicKeyCache: Sendable {
  static let shared = PublicKeyCache(capacity: 8)

  private let capacity: Int
  /// Most recently used last.
  private let entries = Locked<[(der: [UInt8], key: OpaquePointer)]>([])

  init(capacity: Int) { self.capacity = capacity }

  deinit {
    entries.withLock { entries in
      for entry in entries { EVP_PKEY_free(entry.key) }
    }
  }

  /// Runs `body` with the parsed key for `der`, or returns nil when OpenSSL cannot read it.
  func withKey<Result>(_ der: [UInt8], _ body: (OpaquePointer) -> Result) -> Result? {
    guard let key = borrow(der) else { return nil }
    defer { EVP_PKEY_free(key) }
    return body(key)
  }

  private func borrow(_ der: [UInt8]) -> OpaquePointer? {
    let cached: OpaquePointer? = entries.withLock { entries in
      guard let index = entries.firstIndex(where: { $0.der == der }) else { return nil }
      let entry = entries.remove(at: index)
      entries.append(entry)
      EVP_PKEY_up_ref(entry.key)
      return entry.key
    }
    if let cached { return cached }
    guard let parsed = Self.parse(der) else { return nil }
    EVP_PKEY_up_ref(parsed)  // one reference for the cache, one for the borrower
    let evicted: [OpaquePointer] = entries.withLock { entries in
      entries.append((der, parsed))
      let excess = max(0, entries.count - capacity)
      defer { entries.removeFirst(excess) }
      return entries.prefix(excess).map(\.key)
    }
    for key in evicted { EVP_PKEY_free(key) }
    return parsed
  }

  /// A DER SubjectPublicKeyInfo with nothing after it, or nil.
  private static func parse(_ der: [UInt8]) -> OpaquePointer? {
    der.withUnsafeBufferPointer { buffer in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      let key = d2i_PUBKEY(nil, &cursor, buffer.count)
      guard let key, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
        if let key { EVP_PKEY_free(key) }
        return nil
      }
      return key
    }
  }
}
#endif
