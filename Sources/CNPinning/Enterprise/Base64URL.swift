/// Base64url without padding (RFC 7515 §2), strictly: no padding, no whitespace, no other
/// characters, no bits left over.
enum Base64URL {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  static func encode(_ bytes: some Sequence<UInt8>) -> String {
    var output: [UInt8] = []
    var buffer: UInt32 = 0
    var bits = 0
    for byte in bytes {
      buffer = buffer << 8 | UInt32(byte)
      bits += 8
      while bits >= 6 {
        bits -= 6
        output.append(alphabet[Int(buffer >> UInt32(bits) & 0x3F)])
      }
      buffer &= (1 << UInt32(bits)) - 1
    }
    if bits > 0 { output.append(alphabet[Int(buffer << UInt32(6 - bits) & 0x3F)]) }
    return String(decoding: output, as: UTF8.self)
  }

  static func decode(_ text: Substring) -> [UInt8]? {
    guard text.utf8.count % 4 != 1 else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(text.utf8.count * 3 / 4)
    var buffer: UInt32 = 0
    var bits = 0
    for character in text.utf8 {
      let value: UInt32
      switch character {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
      case UInt8(ascii: "-"): value = 62
      case UInt8(ascii: "_"): value = 63
      default: return nil
      }
      buffer = buffer << 6 | value
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8(buffer >> UInt32(bits) & 0xFF))
        buffer &= (1 << UInt32(bits)) - 1
      }
    }
    // The bits left over must be zero, so that each byte string has one spelling (canonical form).
    guard buffer == 0 else { return nil }
    return output
  }
}
