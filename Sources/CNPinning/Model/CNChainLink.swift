/// One link of a pinned chain: a rule that one certificate must satisfy — by its Common Name, or,
/// for the leaf, by the names its subjectAltName makes it valid for.
///
/// Common Names are compared on their exact UTF-8 bytes: case-sensitive, no trimming, no Unicode
/// normalisation. A certificate without a usable Common Name satisfies no CN link (fail-secure).
public struct CNChainLink: Hashable, Sendable {
  /// How a link's value is compared with a certificate.
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
    /// The leaf's subjectAltName makes it valid for the value, compared as host names are (case,
    /// a trailing dot and IP address spellings do not matter; a wildcard entry covers one
    /// left-most label, RFC 6125): a host name or IP address (`api.example.com`, `192.0.2.1`),
    /// or, with a leading dot, a name below a domain (`.example.com`: some entry is
    /// `x.example.com`, `a.b.example.com` or `*.example.com`). The Common Name is not read, so a
    /// leaf without one can be pinned. Only the last link of a chain can have this type.
    case subjectAltName

    /// Whether the link reads the certificate's Common Name (every type but ``subjectAltName``).
    public var comparesCommonName: Bool { self != .subjectAltName }
  }

  /// How the value is compared.
  public let type: LinkType
  /// The text compared with the certificate. Never empty.
  public let value: String
  /// Whether the verified chain may start at this link: a trust store that carries this CA as a
  /// root verifies the chain without the links above it. A chain stands for itself and for each
  /// of its tails that starts at such a link, and for nothing else (``CNChain/shapes``).
  public let mayBeAnchor: Bool
  /// A ``subjectAltName`` value, read.
  private let altName: AltName?

  /// Creates a link. Throws ``CNConfigurationError`` for an empty value, which would match
  /// anything (`emptyValue`), and for a `subjectAltName` value that is not a host name, an IP
  /// address or a `.domain` (`invalidValue`). `mayBeAnchor` marks a CA the trust store may hold
  /// as a root; see ``CNChain/shapes``.
  public init(_ type: LinkType, _ value: String, mayBeAnchor: Bool = false) throws(CNConfigurationError) {
    guard !value.isEmpty else { throw CNConfigurationError(.emptyValue) }
    self.type = type
    self.value = value
    self.mayBeAnchor = mayBeAnchor
    self.altName = type == .subjectAltName ? try AltName(value) : nil
  }

  /// Whether `certificate` satisfies this link: its Common Name for the CN types, its
  /// subjectAltName entries for `subjectAltName`. A certificate without a usable Common Name
  /// satisfies no CN link, and one without a readable subjectAltName no `subjectAltName` link.
  public func matches(_ certificate: CNCertificate) -> Bool {
    if let altName { return altName.matches(certificate) }
    guard let commonName = certificate.commonName else { return false }
    return matches(commonName: commonName)
  }

  /// Whether the Common Name `commonName` satisfies this link; always false for a
  /// `subjectAltName` link, which reads a certificate's names, not a Common Name.
  public func matches(commonName: String) -> Bool {
    guard type.comparesCommonName else { return false }
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
    case .subjectAltName:
      return false
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

extension CNChainLink: Codable {
  private enum CodingKeys: String, CodingKey { case type, value, mayBeAnchor }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      try container.decode(LinkType.self, forKey: .type), try container.decode(String.self, forKey: .value),
      mayBeAnchor: try container.decodeIfPresent(Bool.self, forKey: .mayBeAnchor) ?? false)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(type, forKey: .type)
    try container.encode(value, forKey: .value)
    if mayBeAnchor { try container.encode(true, forKey: .mayBeAnchor) }
  }
}

extension CNChainLink: CustomStringConvertible {
  public var description: String {
    "\(type.rawValue) \(VisibleText.quoted(value))" + (mayBeAnchor ? " (may be the anchor)" : "")
  }
}
