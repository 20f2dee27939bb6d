extension CNConfigurationError {
  /// One problem of a pinning configuration: what is wrong, and where (`path`).
  public struct Problem: Sendable, Hashable {
    /// The failure, with its details; `package` so that cases can be added without breaking
    /// a client's exhaustive `switch` (clients compare `code`).
    package let kind: Kind
    /// The element at fault (`PinnedDomains["api.test"].chainSet[0][2].type`); empty from a model initialiser.
    public let path: String

    package init(_ kind: Kind, path: String = "") {
      self.kind = kind
      self.path = path
    }

    /// What kind of failure this is: compare it (`error.code == .missingValue`); the list may grow.
    public var code: Code { kind.code }

    /// The kinds of configuration problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
      /// The code's name, as the static member that holds it is named.
      public let description: String
      private init(_ name: String) { description = name }
      /// A required key is absent (its name).
      public static let missingValue = Code("missingValue")
      /// The element has the wrong type.
      public static let wrongType = Code("wrongType")
      /// A dictionary has a key this format does not define (the key, and a likely intended key).
      public static let unknownKey = Code("unknownKey")
      /// A link type other than exact, prefix, prefixWithNumber, suffix, subjectAltName (the value, and a likely intent).
      public static let unknownLinkType = Code("unknownLinkType")
      /// A link value is empty, which would match any Common Name.
      public static let emptyValue = Code("emptyValue")
      /// A chain has no links.
      public static let emptyChain = Code("emptyChain")
      /// The link at this index (root → leaf) cannot stand where it is: a subjectAltName link before
      /// the last, or the last link marked mayBeAnchor (the index, and why).
      public static let misplacedLink = Code("misplacedLink")
      /// A configuration has no chains.
      public static let noChainsDefined = Code("noChainsDefined")
      /// The chain at this index repeats an earlier chain of the same configuration.
      public static let duplicateChain = Code("duplicateChain")
      /// A configured host name can never match a connection (the name, and why).
      public static let invalidHost = Code("invalidHost")
      /// A host that normalises to the same name as another configured host (the other's key).
      public static let duplicateHost = Code("duplicateHost")
      /// `PinnedDomains` is empty: the configuration would pin nothing.
      public static let noPinnedDomains = Code("noPinnedDomains")
      /// The file or text is not a property list or JSON document, or cannot be read.
      public static let malformedDocument = Code("malformedDocument")
      /// A pin digest is not base64 of a 32-byte SHA-256 value (the text, and why).
      public static let invalidDigest = Code("invalidDigest")
      /// A certificate file named by a pin cannot be read (the path, and why).
      public static let unreadableCertificate = Code("unreadableCertificate")
      /// The pin at this index repeats an earlier pin of the same kind.
      public static let duplicatePin = Code("duplicatePin")
      /// A host declares no pins of any kind.
      public static let noPinsDefined = Code("noPinsDefined")
      /// A host pinned only by SPKI or certificate pins has one pin: a key change locks every user
      /// out. Add a backup pin (or, in code, opt out explicitly).
      public static let noBackupPin = Code("noBackupPin")
      /// A value is not acceptable here (what, and why).
      public static let invalidValue = Code("invalidValue")
      /// An enterprise policy's `exp` is not later than its `iat`.
      public static let expiryNotAfterIssue = Code("expiryNotAfterIssue")
      /// An enterprise policy names no host (and no `"*"`): it would pin nothing.
      public static let policyPinsNoHost = Code("policyPinsNoHost")
      /// The allowed clock skew is outside 0–300 seconds (the value given).
      public static let clockSkewOutOfRange = Code("clockSkewOutOfRange")
    }

    /// A required key is absent (its name).
    public static func missingValue(_ value: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.missingValue(value))
    }
    /// The element has the wrong type.
    public static func wrongType(expected: String, found: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.wrongType(expected: expected, found: found))
    }
    /// A dictionary has a key this format does not define (the key, and a likely intended key).
    public static func unknownKey(_ value0: String, suggestion: String?) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.unknownKey(value0, suggestion: suggestion))
    }
    /// A link type other than exact, prefix, prefixWithNumber, suffix, subjectAltName (the value, and a likely intent).
    public static func unknownLinkType(_ value0: String, suggestion: String?) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.unknownLinkType(value0, suggestion: suggestion))
    }
    /// A link value is empty, which would match any Common Name.
    public static let emptyValue = CNConfigurationError.Problem(.emptyValue)
    /// A chain has no links.
    public static let emptyChain = CNConfigurationError.Problem(.emptyChain)
    /// The link at this index (root → leaf) cannot stand where it is: a subjectAltName link before
    /// the last, or the last link marked mayBeAnchor (the index, and why).
    public static func misplacedLink(_ value0: Int, reason: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.misplacedLink(value0, reason: reason))
    }
    /// A configuration has no chains.
    public static let noChainsDefined = CNConfigurationError.Problem(.noChainsDefined)
    /// The chain at this index repeats an earlier chain of the same configuration.
    public static func duplicateChain(_ value: Int) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.duplicateChain(value))
    }
    /// A configured host name can never match a connection (the name, and why).
    public static func invalidHost(_ value0: String, reason: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.invalidHost(value0, reason: reason))
    }
    /// A host that normalises to the same name as another configured host (the other's key).
    public static func duplicateHost(_ value0: String, sameAs: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.duplicateHost(value0, sameAs: sameAs))
    }
    /// `PinnedDomains` is empty: the configuration would pin nothing.
    public static let noPinnedDomains = CNConfigurationError.Problem(.noPinnedDomains)
    /// The file or text is not a property list or JSON document, or cannot be read.
    public static func malformedDocument(_ value: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.malformedDocument(value))
    }
    /// A pin digest is not base64 of a 32-byte SHA-256 value (the text, and why).
    public static func invalidDigest(_ value0: String, reason: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.invalidDigest(value0, reason: reason))
    }
    /// A certificate file named by a pin cannot be read (the path, and why).
    public static func unreadableCertificate(_ value0: String, reason: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.unreadableCertificate(value0, reason: reason))
    }
    /// The pin at this index repeats an earlier pin of the same kind.
    public static func duplicatePin(_ value: Int) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.duplicatePin(value))
    }
    /// A host declares no pins of any kind.
    public static let noPinsDefined = CNConfigurationError.Problem(.noPinsDefined)
    /// A host pinned only by SPKI or certificate pins has one pin: a key change locks every user
    /// out. Add a backup pin (or, in code, opt out explicitly).
    public static let noBackupPin = CNConfigurationError.Problem(.noBackupPin)
    /// A value is not acceptable here (what, and why).
    public static func invalidValue(_ value0: String, reason: String) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.invalidValue(value0, reason: reason))
    }
    /// An enterprise policy's `exp` is not later than its `iat`.
    public static let expiryNotAfterIssue = CNConfigurationError.Problem(.expiryNotAfterIssue)
    /// An enterprise policy names no host (and no `"*"`): it would pin nothing.
    public static let policyPinsNoHost = CNConfigurationError.Problem(.policyPinsNoHost)
    /// The allowed clock skew is outside 0–300 seconds (the value given).
    public static func clockSkewOutOfRange(_ value: Double) -> CNConfigurationError.Problem {
      CNConfigurationError.Problem(.clockSkewOutOfRange(value))
    }

    /// Every failure with its details (the cases the public factories make).
    package enum Kind: Sendable, Hashable {
      /// A required key is absent (its name).
      case missingValue(String)
      /// The element has the wrong type.
      case wrongType(expected: String, found: String)
      /// A dictionary has a key this format does not define (the key, and a likely intended key).
      case unknownKey(String, suggestion: String?)
      /// A link type other than exact, prefix, prefixWithNumber, suffix, subjectAltName (the value, and a likely intent).
      case unknownLinkType(String, suggestion: String?)
      /// A link value is empty, which would match any Common Name.
      case emptyValue
      /// A chain has no links.
      case emptyChain
      /// The link at this index (root → leaf) cannot stand where it is: a subjectAltName link before
      /// the last, or the last link marked mayBeAnchor (the index, and why).
      case misplacedLink(Int, reason: String)
      /// A configuration has no chains.
      case noChainsDefined
      /// The chain at this index repeats an earlier chain of the same configuration.
      case duplicateChain(Int)
      /// A configured host name can never match a connection (the name, and why).
      case invalidHost(String, reason: String)
      /// A host that normalises to the same name as another configured host (the other's key).
      case duplicateHost(String, sameAs: String)
      /// `PinnedDomains` is empty: the configuration would pin nothing.
      case noPinnedDomains
      /// The file or text is not a property list or JSON document, or cannot be read.
      case malformedDocument(String)
      /// A pin digest is not base64 of a 32-byte SHA-256 value (the text, and why).
      case invalidDigest(String, reason: String)
      /// A certificate file named by a pin cannot be read (the path, and why).
      case unreadableCertificate(String, reason: String)
      /// The pin at this index repeats an earlier pin of the same kind.
      case duplicatePin(Int)
      /// A host declares no pins of any kind.
      case noPinsDefined
      /// A host pinned only by SPKI or certificate pins has one pin: a key change locks every user
      /// out. Add a backup pin (or, in code, opt out explicitly).
      case noBackupPin
      /// A value is not acceptable here (what, and why).
      case invalidValue(String, reason: String)
      /// An enterprise policy's `exp` is not later than its `iat`.
      case expiryNotAfterIssue
      /// An enterprise policy names no host (and no `"*"`): it would pin nothing.
      case policyPinsNoHost
      /// The allowed clock skew is outside 0–300 seconds (the value given).
      case clockSkewOutOfRange(Double)

      /// The case's code.
      package var code: Code {
        switch self {
        case .missingValue: .missingValue
        case .wrongType: .wrongType
        case .unknownKey: .unknownKey
        case .unknownLinkType: .unknownLinkType
        case .emptyValue: .emptyValue
        case .emptyChain: .emptyChain
        case .misplacedLink: .misplacedLink
        case .noChainsDefined: .noChainsDefined
        case .duplicateChain: .duplicateChain
        case .invalidHost: .invalidHost
        case .duplicateHost: .duplicateHost
        case .noPinnedDomains: .noPinnedDomains
        case .malformedDocument: .malformedDocument
        case .invalidDigest: .invalidDigest
        case .unreadableCertificate: .unreadableCertificate
        case .duplicatePin: .duplicatePin
        case .noPinsDefined: .noPinsDefined
        case .noBackupPin: .noBackupPin
        case .invalidValue: .invalidValue
        case .expiryNotAfterIssue: .expiryNotAfterIssue
        case .policyPinsNoHost: .policyPinsNoHost
        case .clockSkewOutOfRange: .clockSkewOutOfRange
        }
      }
    }
  }
}
