/// What a SubjectPublicKeyInfo holds: the key's algorithm and size, read by the strict DER reader.
public enum CNPublicKeyKind: Sendable, Hashable, CustomStringConvertible {
  /// An RSA key of this modulus size.
  case rsa(bits: Int)
  /// An elliptic-curve key on this named curve.
  case ec(curve: Curve)
  /// An Ed25519 key.
  case ed25519
  /// Another algorithm, by the DER content of its OID.
  case other(oid: [UInt8])

  /// The named curves the reader knows.
  public enum Curve: String, Sendable, Hashable {
    /// NIST P-256 (secp256r1).
    case p256 = "P-256"
    /// NIST P-384 (secp384r1).
    case p384 = "P-384"
    /// NIST P-521 (secp521r1).
    case p521 = "P-521"
    /// Any other curve.
    case other = "an unsupported curve"

    /// Bytes in one coordinate (and in each of r and s of a raw signature).
    public var coordinateSize: Int {
      switch self {
      case .p256: return 32
      case .p384: return 48
      case .p521: return 66
      case .other: return 0
      }
    }

    /// The curve's size in bits.
    public var bits: Int { self == .p521 ? 521 : coordinateSize * 8 }
  }

  public var description: String {
    switch self {
    case .rsa(let bits): return "RSA-\(bits)"
    case .ec(let curve): return "EC \(curve.rawValue)"
    case .ed25519: return "Ed25519"
    case .other: return "an unsupported key type"
    }
  }

  static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
  static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
  static let ed25519OID: [UInt8] = [0x2B, 0x65, 0x70]
  static let curves: [(oid: [UInt8], curve: Curve)] = [
    ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07], .p256),
    ([0x2B, 0x81, 0x04, 0x00, 0x22], .p384),
    ([0x2B, 0x81, 0x04, 0x00, 0x23], .p521),
  ]

  /// Whether INTEGER content is positive and has no needless leading zero byte.
  private static func isMinimalPositive(_ content: some Collection<UInt8>) -> Bool {
    guard let first = content.first else { return false }
    if first & 0x80 != 0 { return false }
    if first == 0 { return content.dropFirst().first.map { $0 & 0x80 != 0 } ?? false }
    return true
  }

  /// Reads a DER SubjectPublicKeyInfo. Throws ``CNCertificateError`` when it is malformed.
  public init(subjectPublicKeyInfo der: [UInt8]) throws(CNCertificateError) {
    self = try der.withUnsafeBufferPointer { bytes throws(CNCertificateError) in try Self.read(bytes).kind }
  }

  /// Reads the DER SubjectPublicKeyInfo that fills `bytes`: the key's kind, and where the key
  /// itself (the RSAPublicKey, or the EC point, inside the BIT STRING) lies in `bytes`.
  static func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(CNCertificateError) -> (kind: CNPublicKeyKind, key: Range<Int>) {
    var top = DERReader(bytes, range: 0..<bytes.count)
    let spki = try top.read(DERReader.sequence, "SubjectPublicKeyInfo")
    try top.expectEnd("SubjectPublicKeyInfo")
    var fields = top.reader(inside: spki)
    let algorithm = try fields.read(DERReader.sequence, "SubjectPublicKeyInfo.algorithm")
    let key = try fields.read(DERReader.bitString, "SubjectPublicKeyInfo.subjectPublicKey")
    try fields.expectEnd("SubjectPublicKeyInfo")
    var algorithmFields = fields.reader(inside: algorithm)
    let oid = try algorithmFields.read(DERReader.objectIdentifier, "SubjectPublicKeyInfo.algorithm")
    let oidBytes = Array(bytes[oid.content])
    guard key.end - key.contentStart >= 2, bytes[key.contentStart] == 0 else {
      throw .invalidContent(field: "SubjectPublicKeyInfo.subjectPublicKey", reason: "is not a whole number of bytes")
    }
    let keyBits = (key.contentStart + 1)..<key.end
    switch oidBytes {
    case Self.rsaEncryption:
      // DER requires the NULL parameter, and positive, minimally encoded integers.
      let parameters = try algorithmFields.read(0x05, "SubjectPublicKeyInfo.algorithm.parameters")
      guard parameters.end == parameters.contentStart else {
        throw .invalidContent(field: "SubjectPublicKeyInfo.algorithm.parameters", reason: "is not NULL")
      }
      try algorithmFields.expectEnd("SubjectPublicKeyInfo.algorithm")
      var inner = DERReader(bytes, range: keyBits)
      let sequence = try inner.read(DERReader.sequence, "RSAPublicKey")
      try inner.expectEnd("RSAPublicKey")
      var numbers = inner.reader(inside: sequence)
      let modulus = try numbers.read(DERReader.integer, "RSAPublicKey.modulus")
      let exponent = try numbers.read(DERReader.integer, "RSAPublicKey.publicExponent")
      try numbers.expectEnd("RSAPublicKey")
      for (number, field) in [(modulus, "RSAPublicKey.modulus"), (exponent, "RSAPublicKey.publicExponent")] {
        guard Self.isMinimalPositive(bytes[number.content]) else {
          throw .invalidContent(field: field, reason: "is not a positive, minimally encoded integer")
        }
      }
      let start = bytes[modulus.contentStart] == 0 ? modulus.contentStart + 1 : modulus.contentStart
      let leading = bytes[start]
      return (.rsa(bits: (modulus.end - start - 1) * 8 + (8 - leading.leadingZeroBitCount)), keyBits)
    case Self.ecPublicKey:
      let parameters = try algorithmFields.read(DERReader.objectIdentifier, "SubjectPublicKeyInfo.algorithm.namedCurve")
      try algorithmFields.expectEnd("SubjectPublicKeyInfo.algorithm")
      let curve = Self.curves.first { $0.oid.elementsEqual(bytes[parameters.content]) }?.curve ?? .other
      let point = key.end - key.contentStart - 1
      guard curve == .other || (point == 1 + 2 * curve.coordinateSize && bytes[key.contentStart + 1] == 0x04) else {
        throw .invalidContent(
          field: "SubjectPublicKeyInfo.subjectPublicKey", reason: "is not an uncompressed \(curve.rawValue) point")
      }
      return (.ec(curve: curve), keyBits)
    case Self.ed25519OID:
      try algorithmFields.expectEnd("SubjectPublicKeyInfo.algorithm")
      guard key.end - key.contentStart == 33 else {
        throw .invalidContent(field: "SubjectPublicKeyInfo.subjectPublicKey", reason: "is not a 32-byte Ed25519 key")
      }
      return (.ed25519, keyBits)
    default:
      return (.other(oid: oidBytes), keyBits)
    }
  }
}

/// The modulus and public exponent of an RSA SubjectPublicKeyInfo, as big-endian bytes without
/// leading zeros: what key checks beyond the size need (``CNPublicKeyKind`` reads only the size).
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
