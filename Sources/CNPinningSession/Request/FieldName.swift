/// The one case rule for HTTP field names (RFC 9110 §5.1): names are compared without regard
/// to ASCII case, and every other byte as it is. Unicode case folding is not the rule: it
/// would take `X-\u{212A}ey` (a Kelvin sign) for `x-key`.
package enum FieldName {
  /// `name` with its ASCII capitals lowered: the key names are compared by.
  package static func key(_ name: String) -> String {
    guard name.utf8.contains(where: isUpperCase) else { return name }
    return String(decoding: name.utf8.map(lowered), as: UTF8.self)
  }

  /// The name in `bytes` (as received) with its ASCII capitals lowered.
  package static func key(_ bytes: some Collection<UInt8>) -> String {
    String(unsafeUninitializedCapacity: bytes.count) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = lowered(byte) }
      return bytes.count
    }
  }

  /// Whether two names are the same field.
  package static func same(_ first: String, _ second: String) -> Bool { key(first) == key(second) }

  /// `byte` lowered when it is an ASCII capital.
  package static func lowered(_ byte: UInt8) -> UInt8 { isUpperCase(byte) ? byte + 0x20 : byte }

  package static func isUpperCase(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
}
