// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning
import Foundation

/// OpenSSL's own reading of a certificate, to check CNPinning's pure-Swift reader against.
public struct OpenSSLCertificateReading: Sendable, Equatable {
  /// Subject CNs in order, converted to UTF-8 by OpenSSL; nil where OpenSSL cannot convert one.
  public let subjectCommonNames: [String?]
  public let issuerCommonNames: [String?]
  /// Base64 SHA-256 of the re-encoded public key (`openssl x509 -pubkey | openssl pkey -pubin -outform der`).
  public let spkiSHA256Base64: String
  /// Base64 SHA-256 of the DER certificate.
  public let certificateSHA256Base64: String
}

public enum OpenSSLReference: Sendable {
  /// Reads `der` with OpenSSL.
  public static func read(_ der: [UInt8]) throws -> OpenSSLCertificateReading {
    let box = try X509Box(der: der)
    guard let publicKey = X509_get0_pubkey(box.pointer) else { throw TestKitError("no public key") }
    let spki = OpenSSLEncoding.der { i2d_PUBKEY(publicKey, $0) }
    return OpenSSLCertificateReading(
      subjectCommonNames: commonNames(X509_get_subject_name(box.pointer)),
      issuerCommonNames: commonNames(X509_get_issuer_name(box.pointer)),
      spkiSHA256Base64: try sha256Base64(spki),
      certificateSHA256Base64: try sha256Base64(der))
  }

  private static func commonNames(_ name: OpaquePointer?) -> [String?] {
    var result: [String?] = []
    var position: Int32 = -1
    while true {
      position = X509_NAME_get_index_by_NID(name, NID_commonName, position)
      guard position >= 0 else { return result }
      let data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, position))
      var utf8: UnsafeMutablePointer<UInt8>? = nil
      let length = ASN1_STRING_to_UTF8(&utf8, data)
      if length >= 0, let utf8 {
        result.append(String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self))
        cnp_OPENSSL_free(utf8)
      } else {
        _ = OpenSSLErrors.drain()
        result.append(nil)
      }
    }
  }

  /// Base64 SHA-256 computed by OpenSSL.
  public static func sha256Base64(_ bytes: [UInt8]) throws -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    guard EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil) == 1 else {
      throw TestKitError("EVP_Digest failed")
    }
    return Data(digest).base64EncodedString()
  }
}

/// OpenSSL's chain verification (`X509_verify_cert`) over certificates parsed once, for
/// comparisons and benchmarks.
// Unchecked Sendable: the OpenSSL objects are made in init and only read afterwards (X509_verify_cert on a fresh context per call).
public final class OpenSSLChainVerifier: @unchecked Sendable {
  private let store: OpaquePointer
  private let leaf: X509Box
  private let intermediates: [X509Box]
  private let untrusted: OpaquePointer
  private let anchors: [X509Box]

  /// `chain` is leaf first; `anchors` are the trusted roots.
  public init(chain: [CNCertificate], anchors: [CNCertificate]) throws {
    guard let first = chain.first else { throw TestKitError(message: "empty chain") }
    guard let store = X509_STORE_new(), let untrusted = cnp_sk_X509_new_null() else {
      throw TestKitError("cannot allocate a store")
    }
    self.store = store
    self.untrusted = untrusted
    self.leaf = try X509Box(der: first.derEncoded)
    self.intermediates = try chain.dropFirst().filter { !anchors.contains($0) }.map {
      try X509Box(der: $0.derEncoded)
    }
    self.anchors = try anchors.map { try X509Box(der: $0.derEncoded) }
    for anchor in self.anchors where X509_STORE_add_cert(store, anchor.pointer) != 1 {
      throw TestKitError("cannot add an anchor")
    }
    for intermediate in intermediates where cnp_sk_X509_push(untrusted, intermediate.pointer) <= 0 {
      throw TestKitError("cannot add an intermediate")
    }
  }

  deinit {
    cnp_sk_X509_free(untrusted)
    X509_STORE_free(store)
  }

  /// Runs `X509_verify_cert` once; returns nil on success, else OpenSSL's reason.
  public func verify() -> String? {
    guard let context = X509_STORE_CTX_new() else { return "cannot allocate a context" }
    defer { X509_STORE_CTX_free(context) }
    guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else { return "cannot init" }
    if X509_verify_cert(context) == 1 { return nil }
    return String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
  }
}
#endif
