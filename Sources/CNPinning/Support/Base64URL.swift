import Foundation

/// Base64url without padding (RFC 7515 §2), strictly: no padding, no whitespace, no other
/// characters, no bits left over.
enum Base64URL {
  static func encode(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  static func decode(_ text: Substring) -> [UInt8]? {
    guard text.utf8.count % 4 != 1 else { return nil }
    var standard = ""
    standard.reserveCapacity(text.utf8.count + 3)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        standard.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: "-"): standard += "+"
      case UInt8(ascii: "_"): standard += "/"
      default: return nil
      }
    }
    standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
    guard let data = Data(base64Encoded: standard) else { return nil }
    let bytes = [UInt8](data)
    // Re-encoding must give the same text, so that unused trailing bits are zero (canonical form).
    guard encode(bytes) == text else { return nil }
    return bytes
  }
}
