/// The modulus and public exponent of an RSA SubjectPublicKeyInfo, as big-endian bytes without
/// leading zeros: what key checks beyond the size need (`CNPublicKeyKind` reads only the size).
struct RSAPublicNumbers {
  let modulus: [UInt8]
  let exponent: [UInt8]

  /// nil when `der` is not a well-formed RSA SubjectPublicKeyInfo.
  init?(subjectPublicKeyInfo der: [UInt8]) {
    let numbers = der.withUnsafeBufferPointer { bytes -> (modulus: [UInt8], exponent: [UInt8])? in
      guard let (kind, key) = try? CNPublicKeyKind.read(bytes), case .rsa = kind else { return nil }
      var outer = DERReader(bytes, range: key)
      guard let sequence = try? outer.read(DERReader.sequence, "RSAPublicKey") else { return nil }
      var inner = outer.reader(inside: sequence)
      guard let modulus = try? inner.read(DERReader.integer, "RSAPublicKey.modulus"),
        let exponent = try? inner.read(DERReader.integer, "RSAPublicKey.publicExponent")
      else { return nil }
      // CNPublicKeyKind.read has checked both are positive and minimal: at most one leading zero.
      return (Array(bytes[modulus.content].drop { $0 == 0 }), Array(bytes[exponent.content].drop { $0 == 0 }))
    }
    guard let numbers else { return nil }
    modulus = numbers.modulus
    exponent = numbers.exponent
  }
}
