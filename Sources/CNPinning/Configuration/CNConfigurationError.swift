extension CNConfigurationError.Problem: CustomStringConvertible {
  /// What is wrong, without the path.
  public var message: String {
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
      return "empty link value (it would match any name)"
    case .emptyChain:
      return "empty chain (a chain needs one link per certificate, root → leaf)"
    case .misplacedLink(let index, let reason):
      return "link \(index) (root → leaf) cannot stand there: \(reason)"
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

  /// The path, then what is wrong.
  public var description: String { path.isEmpty ? message : "\(path): \(message)" }

  /// The same problem at `path` (where a loader found what a model initialiser refused).
  public func at(_ path: String) -> Self { Self(kind, path: path) }
}

/// A configuration that cannot be used, with every problem found, in document order (hosts sorted).
///
/// The one error of configurations: the loaders (`CNPinningDocument`, `CNPinningManager(contentsOf:)`)
/// throw every problem they find, each with its path; the model initialisers (``CNChainLink``,
/// ``CNChain``, ``CNConfiguration``) throw the one problem they find, without a path.
public struct CNConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file the configuration came from, when it came from a file.
  public let source: String?
  /// The problems, never empty.
  public let problems: [Problem]

  /// An error for `problems` (at least one) found in `source`.
  public init(source: String? = nil, problems: [Problem]) {
    precondition(!problems.isEmpty, "a configuration error needs at least one problem")
    self.source = source
    self.problems = problems
  }

  /// An error of one problem, as a model initialiser throws it.
  public init(_ problem: Problem, source: String? = nil) {
    self.init(source: source, problems: [problem])
  }

  /// The kinds of configuration problem.
  public typealias Code = Problem.Code

  /// The first problem's code: the only one of an error from a model initialiser
  /// (`error.code == .emptyValue`).
  public var code: Code { problems[0].code }

  public var description: String {
    let origin = source.map { " in \($0)" } ?? ""
    if problems.count == 1 { return "Invalid pinning configuration\(origin): \(problems[0])" }
    return "Invalid pinning configuration\(origin) (\(problems.count) problems):\n"
      + problems.map { "  \($0)" }.joined(separator: "\n")
  }
}

extension CNConfigurationError.Problem {
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

/// A non-fatal remark about a configuration, such as a link without a type.
public struct CNConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
  /// The element the warning is about.
  public let path: String
  /// What was assumed or what to check.
  public let message: String

  public var description: String { "\(path): \(message)" }
}
