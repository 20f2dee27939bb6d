/// One link of a pinned chain: a rule that one certificate's Common Name must satisfy.
///
/// Comparison is on the exact UTF-8 bytes: case-sensitive, no trimming, no Unicode normalisation.
public struct CNChainLink: Hashable, Sendable, Codable {
  /// How a link's value is compared with a Common Name.
  public enum LinkType: String, Sendable, Codable, CaseIterable {
    /// The Common Name equals the value.
    case exact
    /// The Common Name starts with the value (an equal name counts).
    case prefix
    /// The Common Name is the value followed by one or more ASCII digits 0–9 and nothing else
    /// (`YR` matches `YR1` and `YR12`, not `YR`, `YR1a`, `YR 1` or non-ASCII digits).
    case prefixWithNumber
    /// The Common Name ends with the value, as a plain string suffix (no dot boundary is implied).
    case suffix
  }

  /// How the value is compared.
  public let type: LinkType
  /// The text compared with the Common Name. Never empty.
  public let value: String

  /// Creates a link. Throws `CNConfigurationError.Problem.emptyValue` for an empty value, which would match anything.
  public init(_ type: LinkType, _ value: String) throws(CNConfigurationError) {
    guard !value.isEmpty else { throw CNConfigurationError(.emptyValue) }
    self.type = type
    self.value = value
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      try container.decode(LinkType.self, forKey: .type),
      try container.decode(String.self, forKey: .value))
  }

  /// Whether `commonName` satisfies this link.
  public func matches(_ commonName: String) -> Bool {
    var name = commonName
    var pattern = value
    return name.withUTF8 { nameBytes in
      pattern.withUTF8 { patternBytes in Self.matches(type, pattern: patternBytes, name: nameBytes) }
    }
  }

  static func matches(
    _ type: LinkType, pattern: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    switch type {
    case .exact:
      return name.count == pattern.count && hasPrefix(name, pattern)
    case .prefix:
      return hasPrefix(name, pattern)
    case .prefixWithNumber:
      guard name.count > pattern.count, hasPrefix(name, pattern) else { return false }
      return name[pattern.count...].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    case .suffix:
      guard name.count >= pattern.count else { return false }
      return name[(name.count - pattern.count)...].elementsEqual(pattern)
    }
  }

  private static func hasPrefix(_ name: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    guard name.count >= pattern.count else { return false }
    for index in 0..<pattern.count where name[index] != pattern[index] { return false }
    return true
  }
}

extension CNChainLink: CustomStringConvertible {
  public var description: String { "\(type.rawValue) \(VisibleText.quoted(value))" }
}
