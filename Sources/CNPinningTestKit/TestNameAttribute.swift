// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
/// One attribute of a certificate's subject, with full control of its ASN.1 string type and bytes,
/// so that tests can build any subject a real (or hostile) CA might issue.
public struct TestNameAttribute: Sendable, Hashable {
  /// The ASN.1 string types an attribute value can have (the value is the universal tag number).
  public enum StringType: Int32, Sendable, Hashable, CaseIterable {
    case utf8String = 12
    case printableString = 19
    case teletexString = 20
    case ia5String = 22
    case universalString = 28
    case bmpString = 30
  }

  /// OpenSSL's short name of the attribute type ("CN", "O", "OU", "C", …).
  public let shortName: String
  public let stringType: StringType
  /// The value's content bytes, stored as given.
  public let bytes: [UInt8]
  /// When set, the value is written with this tag and `bytes` exactly as given, bypassing
  /// OpenSSL's checks (which refuse invalid strings); the certificate is re-signed afterwards.
  public let verbatimTag: UInt8?

  public init(shortName: String, stringType: StringType, bytes: [UInt8]) {
    self.shortName = shortName
    self.stringType = stringType
    self.bytes = bytes
    self.verbatimTag = nil
  }

  private init(shortName: String, verbatimTag: UInt8, bytes: [UInt8]) {
    self.shortName = shortName
    self.stringType = .utf8String
    self.bytes = bytes
    self.verbatimTag = verbatimTag
  }

  /// An attribute whose value is encoded exactly as given: any tag, any bytes, even ones that
  /// are invalid for the tag (an overlong UTF-8 sequence, an odd-length BMPString, …).
  public static func verbatim(shortName: String = "CN", tag: UInt8, bytes: [UInt8]) -> TestNameAttribute {
    TestNameAttribute(shortName: shortName, verbatimTag: tag, bytes: bytes)
  }

  /// A Common Name with `text` encoded as `stringType` requires (UTF-8, ASCII, Latin-1, UCS-2 or
  /// UCS-4, big-endian).
  public static func commonName(_ text: String, as stringType: StringType = .utf8String) -> TestNameAttribute {
    TestNameAttribute(shortName: "CN", stringType: stringType, bytes: encode(text, as: stringType))
  }

  /// An organisation name.
  public static func organization(_ text: String) -> TestNameAttribute {
    TestNameAttribute(shortName: "O", stringType: .utf8String, bytes: Array(text.utf8))
  }

  /// A country code.
  public static func country(_ code: String) -> TestNameAttribute {
    TestNameAttribute(shortName: "C", stringType: .printableString, bytes: Array(code.utf8))
  }

  static func encode(_ text: String, as stringType: StringType) -> [UInt8] {
    switch stringType {
    case .utf8String, .printableString, .ia5String:
      return Array(text.utf8)
    case .teletexString:
      return text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
    case .bmpString:
      return text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    case .universalString:
      return text.unicodeScalars.flatMap { scalar in
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) }
      }
    }
  }
}
#endif
