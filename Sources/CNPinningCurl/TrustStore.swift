#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning

/// The OpenSSL certificate store a session verifies chains against, built once per session and
/// shared (by reference count) with every TLS connection it makes.
///
/// Custom anchors are trusted as given, self-signed or not (as Apple's custom anchors are:
/// OpenSSL's partial-chain trust); the system's store never is, so a certificate someone put in
/// it below a root is no anchor. With both, a chain is verified against the whole store first
/// and, only if that fails, against the custom anchors alone, as given. The flag is set for
/// each verification (`ChainVerification.run`), not left to whoever last touched the store.
// Unchecked Sendable: the X509_STORE is filled in init and only read afterwards, which OpenSSL allows from several threads.
package final class TrustStore: @unchecked Sendable {
  /// What chains are built from: the system's anchors, the custom ones, or both.
  let store: OpaquePointer
  /// Whether every certificate in `store` is an anchor as given (custom anchors alone).
  let trustsStoreAsGiven: Bool
  /// With the system's anchors and custom ones, the custom anchors alone, each trusted as given:
  /// what a chain the whole store does not verify is tried against. Nil otherwise.
  let customAnchorsAsGiven: OpaquePointer?

  /// The system's anchors, the custom ones, or both (at least one of them).
  package init(system: Bool, customAnchors: [CNCertificate]) throws(CurlSetupError) {
    switch (system, customAnchors.isEmpty) {
    case (true, true):
      store = try Self.systemStore()
      trustsStoreAsGiven = false
      customAnchorsAsGiven = nil
    case (false, _):
      store = try Self.store(of: customAnchors)
      trustsStoreAsGiven = true
      customAnchorsAsGiven = nil
    case (true, false):
      let custom = try Self.store(of: customAnchors)
      let system: OpaquePointer
      do {
        system = try Self.systemStore()
      } catch {
        X509_STORE_free(custom)
        throw error
      }
      store = system
      trustsStoreAsGiven = false
      customAnchorsAsGiven = custom
      // The whole store, for the first try: the system's anchors and the custom ones.
      for certificate in Self.certificates(in: custom) {
        guard let x509 = Self.x509(certificate) else { continue }
        defer { X509_free(x509) }
        if X509_STORE_add_cert(system, x509) != 1 { ERR_clear_error() }
      }
    }
  }

  private static func systemStore() throws(CurlSetupError) -> OpaquePointer {
    guard let store = X509_STORE_new() else { throw CurlSetupError("cannot allocate an OpenSSL store") }
    guard X509_STORE_set_default_paths(store) == 1 else {
      ERR_clear_error()
      X509_STORE_free(store)
      throw CurlSetupError("OpenSSL cannot load the system trust store")
    }
    return store
  }

  private static func store(of anchors: [CNCertificate]) throws(CurlSetupError) -> OpaquePointer {
    guard !anchors.isEmpty else { throw CurlSetupError("custom trust needs at least one anchor certificate") }
    guard let store = X509_STORE_new() else { throw CurlSetupError("cannot allocate an OpenSSL store") }
    for anchor in anchors {
      guard let x509 = x509(anchor.derEncoded) else {
        ERR_clear_error()
        X509_STORE_free(store)
        throw CurlSetupError("OpenSSL cannot use the anchor \(anchor)")
      }
      defer { X509_free(x509) }
      guard X509_STORE_add_cert(store, x509) == 1 else {
        ERR_clear_error()
        X509_STORE_free(store)
        throw CurlSetupError("OpenSSL cannot use the anchor \(anchor)")
      }
    }
    return store
  }

  private static func x509(_ der: [UInt8]) -> OpaquePointer? {
    der.withUnsafeBufferPointer { buffer in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      return d2i_X509(nil, &cursor, buffer.count)
    }
  }

  /// Every certificate the store holds (for the system store, the bundle OpenSSL loads), as
  /// DER. Certificates kept in a hashed directory are looked up only when needed and are not
  /// listed.
  package func certificates() -> [[UInt8]] { Self.certificates(in: store) }

  private static func certificates(in store: OpaquePointer) -> [[UInt8]] {
    guard let stack = X509_STORE_get1_all_certs(store) else { return [] }
    defer { cnp_sk_X509_pop_free(stack) }
    return (0..<cnp_sk_X509_num(stack)).compactMap { index -> [UInt8]? in
      guard let certificate = cnp_sk_X509_value(stack, index) else { return nil }
      var der: UnsafeMutablePointer<UInt8>?
      let length = i2d_X509(certificate, &der)
      guard length > 0, let der else { return nil }
      defer { cnp_OPENSSL_free(der) }
      return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }
  }

  deinit {
    X509_STORE_free(store)
    if let customAnchorsAsGiven { X509_STORE_free(customAnchorsAsGiven) }
  }
}
#endif
