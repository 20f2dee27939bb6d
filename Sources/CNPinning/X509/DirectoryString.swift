/// Decoding of the ASN.1 string types that carry attribute values such as a Common Name.
enum DirectoryString {
  static let utf8String: UInt8 = 0x0C
  static let printableString: UInt8 = 0x13
  static let teletexString: UInt8 = 0x14
  static let ia5String: UInt8 = 0x16
  static let universalString: UInt8 = 0x1C
  static let bmpString: UInt8 = 0x1E

  /// The text of a string element, or nil when its type is not one of the supported string types
  /// or its bytes are not valid for that type.
  static func decode(tag: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    switch tag {
    case utf8String:
      return UTF8Validation.decode(bytes)
    case printableString, ia5String:
      guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
      return String(decoding: bytes, as: UTF8.self)
    case teletexString:
      return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    case bmpString:
      guard bytes.count % 2 == 0 else { return nil }
      return scalars(bytes, width: 2)
    case universalString:
      guard bytes.count % 4 == 0 else { return nil }
      return scalars(bytes, width: 4)
    default:
      return nil
    }
  }

  /// Big-endian UCS-2 or UCS-4; surrogates and values beyond U+10FFFF are invalid.
  private static func scalars(_ bytes: UnsafeBufferPointer<UInt8>, width: Int) -> String? {
    var view = String.UnicodeScalarView()
    var index = 0
    while index < bytes.count {
      var value: UInt32 = 0
      for offset in 0..<width { value = value << 8 | UInt32(bytes[index + offset]) }
      guard let scalar = Unicode.Scalar(value) else { return nil }
      view.append(scalar)
      index += width
    }
    return String(view)
  }

  static func typeName(_ tag: UInt8) -> String {
    switch tag {
    case utf8String: return "UTF8String"
    case printableString: return "PrintableString"
    case teletexString: return "TeletexString"
    case ia5String: return "IA5String"
    case bmpString: return "BMPString"
    case universalString: return "UniversalString"
    default: return "tag 0x" + String(tag, radix: 16, uppercase: true)
    }
  }
}
