/// What is wrong with one element of a pinning configuration.
///
/// Thrown on its own by the model initialisers (`CNChainLink`, `CNChain`, `CNConfiguration`); the
/// configuration loaders wrap it in a `CNConfigurationError` that also says where the element is.
public struct CNParseError: Error, Sendable, Hashable {
  /// The failure, with its details; `package` so that cases can be added without breaking
  /// a client's exhaustive `switch` (clients compare `code`).
  package let kind: Kind

  package init(_ kind: Kind) { self.kind = kind }

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
    /// A link type other than exact, prefix, prefixWithNumber, suffix (the value, and a likely intent).
    public static let unknownLinkType = Code("unknownLinkType")
    /// A link value is empty, which would match any Common Name.
    public static let emptyValue = Code("emptyValue")
    /// A chain has no links.
    public static let emptyChain = Code("emptyChain")
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
  public static func missingValue(_ value: String) -> CNParseError { CNParseError(.missingValue(value)) }
  /// The element has the wrong type.
  public static func wrongType(expected: String, found: String) -> CNParseError {
    CNParseError(.wrongType(expected: expected, found: found))
  }
  /// A dictionary has a key this format does not define (the key, and a likely intended key).
  public static func unknownKey(_ value0: String, suggestion: String?) -> CNParseError {
    CNParseError(.unknownKey(value0, suggestion: suggestion))
  }
  /// A link type other than exact, prefix, prefixWithNumber, suffix (the value, and a likely intent).
  public static func unknownLinkType(_ value0: String, suggestion: String?) -> CNParseError {
    CNParseError(.unknownLinkType(value0, suggestion: suggestion))
  }
  /// A link value is empty, which would match any Common Name.
  public static let emptyValue = CNParseError(.emptyValue)
  /// A chain has no links.
  public static let emptyChain = CNParseError(.emptyChain)
  /// A configuration has no chains.
  public static let noChainsDefined = CNParseError(.noChainsDefined)
  /// The chain at this index repeats an earlier chain of the same configuration.
  public static func duplicateChain(_ value: Int) -> CNParseError { CNParseError(.duplicateChain(value)) }
  /// A configured host name can never match a connection (the name, and why).
  public static func invalidHost(_ value0: String, reason: String) -> CNParseError {
    CNParseError(.invalidHost(value0, reason: reason))
  }
  /// A host that normalises to the same name as another configured host (the other's key).
  public static func duplicateHost(_ value0: String, sameAs: String) -> CNParseError {
    CNParseError(.duplicateHost(value0, sameAs: sameAs))
  }
  /// `PinnedDomains` is empty: the configuration would pin nothing.
  public static let noPinnedDomains = CNParseError(.noPinnedDomains)
  /// The file or text is not a property list or JSON document, or cannot be read.
  public static func malformedDocument(_ value: String) -> CNParseError { CNParseError(.malformedDocument(value)) }
  /// A pin digest is not base64 of a 32-byte SHA-256 value (the text, and why).
  public static func invalidDigest(_ value0: String, reason: String) -> CNParseError {
    CNParseError(.invalidDigest(value0, reason: reason))
  }
  /// A certificate file named by a pin cannot be read (the path, and why).
  public static func unreadableCertificate(_ value0: String, reason: String) -> CNParseError {
    CNParseError(.unreadableCertificate(value0, reason: reason))
  }
  /// The pin at this index repeats an earlier pin of the same kind.
  public static func duplicatePin(_ value: Int) -> CNParseError { CNParseError(.duplicatePin(value)) }
  /// A host declares no pins of any kind.
  public static let noPinsDefined = CNParseError(.noPinsDefined)
  /// A host pinned only by SPKI or certificate pins has one pin: a key change locks every user
  /// out. Add a backup pin (or, in code, opt out explicitly).
  public static let noBackupPin = CNParseError(.noBackupPin)
  /// A value is not acceptable here (what, and why).
  public static func invalidValue(_ value0: String, reason: String) -> CNParseError {
    CNParseError(.invalidValue(value0, reason: reason))
  }
  /// An enterprise policy's `exp` is not later than its `iat`.
  public static let expiryNotAfterIssue = CNParseError(.expiryNotAfterIssue)
  /// An enterprise policy names no host (and no `"*"`): it would pin nothing.
  public static let policyPinsNoHost = CNParseError(.policyPinsNoHost)
  /// The allowed clock skew is outside 0–300 seconds (the value given).
  public static func clockSkewOutOfRange(_ value: Double) -> CNParseError { CNParseError(.clockSkewOutOfRange(value)) }
}

extension CNParseError {
  /// Every failure with its details (the cases the public factories make).
  package enum Kind: Sendable, Hashable {
    /// A required key is absent (its name).
    case missingValue(String)
    /// The element has the wrong type.
    case wrongType(expected: String, found: String)
    /// A dictionary has a key this format does not define (the key, and a likely intended key).
    case unknownKey(String, suggestion: String?)
    /// A link type other than exact, prefix, prefixWithNumber, suffix (the value, and a likely intent).
    case unknownLinkType(String, suggestion: String?)
    /// A link value is empty, which would match any Common Name.
    case emptyValue
    /// A chain has no links.
    case emptyChain
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
    var code: Code {
      switch self {
      case .missingValue: .missingValue
      case .wrongType: .wrongType
      case .unknownKey: .unknownKey
      case .unknownLinkType: .unknownLinkType
      case .emptyValue: .emptyValue
      case .emptyChain: .emptyChain
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

extension CNParseError: CustomStringConvertible {
  public var description: String {
    switch kind {
    case .missingValue(let key):
      return "missing required key \"\(key)\""
    case .wrongType(let expected, let found):
      return "expected \(expected), found \(found)"
    case .unknownKey(let key, let suggestion):
      return "unknown key \"\(key)\"" + Self.didYouMean(suggestion)
    case .unknownLinkType(let type, let suggestion):
      return "unknown link type \"\(type)\"" + Self.didYouMean(suggestion)
        + " (expected one of: \(CNChainLink.LinkType.allCases.map(\.rawValue).joined(separator: ", ")))"
    case .emptyValue:
      return "empty link value (it would match any Common Name)"
    case .emptyChain:
      return "empty chain (a chain needs one link per certificate, root → leaf)"
    case .noChainsDefined:
      return "no chains defined (chainSet needs at least one chain)"
    case .duplicateChain(let index):
      return "chain \(index) repeats an earlier chain"
    case .invalidHost(let host, let reason):
      return "invalid host name \"\(host)\": \(reason)"
    case .duplicateHost(let host, let other):
      return "host \"\(host)\" is the same host as \"\(other)\" after normalisation"
    case .noPinnedDomains:
      return "PinnedDomains is empty: this configuration would pin nothing"
    case .malformedDocument(let reason):
      return reason
    case .invalidDigest(let text, let reason):
      return "pin \"\(text)\" \(reason)"
    case .unreadableCertificate(let path, let reason):
      return "cannot read the certificate \"\(path)\": \(reason)"
    case .duplicatePin(let index):
      return "pin \(index) repeats an earlier pin"
    case .noPinsDefined:
      return "no pins defined (give chainSet, spkiPins or certificatePins)"
    case .noBackupPin:
      return
        "only one hash pin and no chainSet: when that key or certificate changes every client is locked out; add a backup pin"
    case .invalidValue(let value, let reason):
      return "\"\(value)\" \(reason)"
    case .expiryNotAfterIssue:
      return "exp must be later than iat"
    case .policyPinsNoHost:
      return "the policy pins no host: add a host or \"*\" entry"
    case .clockSkewOutOfRange(let seconds):
      return "clock skew must be 0–300 seconds, not \(seconds)"
    }
  }

  private static func didYouMean(_ suggestion: String?) -> String {
    suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""
  }
}

/// One problem found in a configuration: where it is and what is wrong.
public struct CNConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
  /// The element at fault, e.g. `PinnedDomains["api.example.com"].chainSet[0][2].type`.
  public let path: String
  /// What is wrong with it.
  public let error: CNParseError

  /// A problem of the element at `path`.
  public init(path: String, error: CNParseError) {
    self.path = path
    self.error = error
  }

  public var description: String { path.isEmpty ? error.description : "\(path): \(error)" }
}

/// A configuration that cannot be used, with every problem found, in document order (hosts sorted).
public struct CNConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file the configuration came from, when it came from a file.
  public let source: String?
  /// The problems, never empty.
  public let problems: [CNConfigurationProblem]

  /// An error for `problems` (at least one) found in `source`.
  public init(source: String? = nil, problems: [CNConfigurationProblem]) {
    precondition(!problems.isEmpty, "a configuration error needs at least one problem")
    self.source = source
    self.problems = problems
  }

  public var description: String {
    let origin = source.map { " in \($0)" } ?? ""
    if problems.count == 1 { return "Invalid pinning configuration\(origin): \(problems[0])" }
    return "Invalid pinning configuration\(origin) (\(problems.count) problems):\n"
      + problems.map { "  \($0)" }.joined(separator: "\n")
  }
}

/// A non-fatal remark about a configuration, such as a link without a type.
public struct CNConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
  /// The element the warning is about.
  public let path: String
  /// What was assumed or what to check.
  public let message: String

  public var description: String { "\(path): \(message)" }
}

extension CNParseError {
  /// The text at fault, when the problem names one: the missing or unknown key, the link type,
  /// the host, the digest, the certificate path or the value.
  public var value: String? {
    switch kind {
    case .missingValue(let text), .unknownKey(let text, _), .unknownLinkType(let text, _), .invalidHost(let text, _),
      .duplicateHost(let text, _), .invalidDigest(let text, _), .unreadableCertificate(let text, _),
      .invalidValue(let text, _):
      text
    default: nil
    }
  }

  /// Why the value is refused, when the problem says more than its code.
  public var reason: String? {
    switch kind {
    case .invalidHost(_, let reason), .invalidDigest(_, let reason), .unreadableCertificate(_, let reason),
      .invalidValue(_, let reason), .malformedDocument(let reason):
      reason
    default: nil
    }
  }

  /// A likely intended key or link type, for an unknown one.
  public var suggestion: String? {
    switch kind {
    case .unknownKey(_, let suggestion), .unknownLinkType(_, let suggestion): suggestion
    default: nil
    }
  }

  /// The position of a repeated chain or pin.
  public var index: Int? {
    switch kind {
    case .duplicateChain(let index), .duplicatePin(let index): index
    default: nil
    }
  }
}
