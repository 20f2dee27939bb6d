#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning
import CNPinningSessionCore

/// The OpenSSL certificate store a session verifies chains against, built once per session and
/// shared (by reference count) with every TLS connection it makes.
// Unchecked Sendable: the X509_STORE is filled in init and only read afterwards, which OpenSSL allows from several threads.
package final class TrustStore: @unchecked Sendable {
  let store: OpaquePointer

  package init(_ trust: CNTrust) throws(CNPinnedSessionError) {
    guard let store = X509_STORE_new() else { throw .invalidArgument("cannot allocate an OpenSSL store") }
    self.store = store
    var anchors: [CNCertificate] = []
    switch trust {
    case .system:
      try loadSystemAnchors()
    case .customAnchors(let custom):
      anchors = custom
    case .systemAndCustomAnchors(let custom):
      try loadSystemAnchors()
      anchors = custom
    }
    if case .system = trust { return }
    guard !anchors.isEmpty else { throw .invalidArgument("custom trust needs at least one anchor certificate") }
    for anchor in anchors {
      let added = anchor.derEncoded.withUnsafeBufferPointer { buffer -> Bool in
        var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
        guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return false }
        defer { X509_free(x509) }
        return X509_STORE_add_cert(store, x509) == 1
      }
      guard added else {
        ERR_clear_error()
        throw .invalidArgument("OpenSSL cannot use the anchor \(anchor)")
      }
    }
    // An anchor is trusted as given, self-signed or not (as Apple's custom anchors are).
    X509_STORE_set_flags(store, UInt(X509_V_FLAG_PARTIAL_CHAIN))
  }

  private func loadSystemAnchors() throws(CNPinnedSessionError) {
    guard X509_STORE_set_default_paths(store) == 1 else {
      ERR_clear_error()
      throw .invalidArgument("OpenSSL cannot load the system trust store")
    }
  }

  /// Every certificate the store holds (for the system store, the bundle OpenSSL loads), as
  /// DER. Certificates kept in a hashed directory are looked up only when needed and are not
  /// listed.
  package func certificates() -> [[UInt8]] {
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

  deinit { X509_STORE_free(store) }
}
#endif
