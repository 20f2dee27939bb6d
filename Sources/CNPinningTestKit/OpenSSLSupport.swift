// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import Foundation

/// An error reported by OpenSSL while building test material.
public struct TestKitError: Error, Sendable, CustomStringConvertible {
  public let message: String
  public var description: String { message }

  init(_ what: String) {
    self.message = "\(what): \(OpenSSLErrors.drain())"
  }

  public init(message: String) {
    self.message = message
  }
}

enum OpenSSLErrors {
  /// Removes and returns OpenSSL's queued errors for this thread, as text.
  static func drain() -> String {
    var messages: [String] = []
    while true {
      let code = ERR_get_error()
      guard code != 0 else { break }
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return messages.isEmpty ? "no OpenSSL error recorded" : messages.joined(separator: "; ")
  }
}

/// Owns an OpenSSL `X509`.
// Unchecked Sendable: owns an X509 made in init and only read afterwards (OpenSSL's X509 is safe to read from several threads).
final class X509Box: @unchecked Sendable {
  let pointer: OpaquePointer

  init(taking pointer: OpaquePointer) { self.pointer = pointer }

  convenience init(der: [UInt8]) throws {
    let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      return d2i_X509(nil, &cursor, buffer.count)
    }
    guard let parsed else { throw TestKitError("OpenSSL cannot read the certificate") }
    self.init(taking: parsed)
  }

  deinit { X509_free(pointer) }

  var der: [UInt8] { OpenSSLEncoding.der { i2d_X509(pointer, $0) } }
}

enum OpenSSLEncoding {
  /// Runs an `i2d_*` function and returns the bytes it wrote.
  static func der(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int32) -> [UInt8] {
    var output: UnsafeMutablePointer<UInt8>? = nil
    let length = encode(&output)
    guard length > 0, let output else { return [] }
    defer { cnp_OPENSSL_free(output) }
    return Array(UnsafeBufferPointer(start: output, count: Int(length)))
  }

  /// Runs a `PEM_write_bio_*` function into memory and returns the text.
  static func pem(_ write: (OpaquePointer) -> Int32) throws -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw TestKitError("BIO_new failed") }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw TestKitError("PEM encoding failed") }
    var data: UnsafeMutablePointer<CChar>? = nil
    let length = cnp_BIO_get_mem_data(bio, &data)
    guard length > 0, let data else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
  }
}
#endif
