/// Minimal DER encoding, to rebuild a SubjectPublicKeyInfo from a JWK and ECDSA signatures from
/// their JOSE form.
enum DERWriter {
  static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8]
    if content.count < 0x80 {
      length = [UInt8(content.count)]
    } else {
      var bytes: [UInt8] = []
      var remaining = content.count
      while remaining > 0 {
        bytes.insert(UInt8(remaining & 0xFF), at: 0)
        remaining >>= 8
      }
      length = [0x80 | UInt8(bytes.count)] + bytes
    }
    return [tag] + length + content
  }

  static func sequence(_ parts: [[UInt8]]) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }

  /// A non-negative INTEGER from big-endian magnitude bytes.
  static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
    var bytes = Array(magnitude.drop { $0 == 0 })
    if bytes.isEmpty { bytes = [0] }
    if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return element(0x02, bytes)
  }

  static func objectIdentifier(_ content: [UInt8]) -> [UInt8] { element(0x06, content) }
  static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(0x03, [0] + bytes) }
  static let null: [UInt8] = [0x05, 0x00]
}
