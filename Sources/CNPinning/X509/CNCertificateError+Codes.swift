/// Why bytes or text could not be read as a certificate.
public struct CNCertificateError: Error, Sendable, Hashable {
  /// The failure, with its details; `package` so that cases can be added without breaking
  /// a client's exhaustive `switch` (clients compare `code`).
  package let kind: Kind

  package init(_ kind: Kind) { self.kind = kind }

  /// What kind of failure this is: compare it (`error.code == .empty`); the list may grow.
  public var code: Code { kind.code }

  /// The kinds of certificate-reading failure.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The code's name, as the static member that holds it is named.
    public let description: String
    private init(_ name: String) { description = name }
    /// No bytes were given.
    public static let empty = Code("empty")
    /// The input is larger than ``CNCertificate/maximumSize``.
    public static let tooLarge = Code("tooLarge")
    /// The DER ends inside the named element.
    public static let truncated = Code("truncated")
    /// The named element's length is not a valid DER length (indefinite, non-minimal or too long).
    public static let invalidLength = Code("invalidLength")
    /// The named element has another tag than the certificate structure requires there.
    public static let unexpectedTag = Code("unexpectedTag")
    /// Bytes follow the end of the named element.
    public static let trailingData = Code("trailingData")
    /// The named element is tagged correctly but its content is not valid.
    public static let invalidContent = Code("invalidContent")
    /// The PEM text is not well formed.
    public static let invalidPEM = Code("invalidPEM")
    /// The PEM text holds no `CERTIFICATE` block.
    public static let noCertificateInPEM = Code("noCertificateInPEM")
    /// `init(pemEncoded:)` was given several certificates; use `certificates(pemEncoded:)`.
    public static let multipleCertificatesInPEM = Code("multipleCertificatesInPEM")
  }

  /// No bytes were given.
  public static let empty = CNCertificateError(.empty)
  /// The input is larger than ``CNCertificate/maximumSize``.
  public static func tooLarge(_ value: Int) -> CNCertificateError { CNCertificateError(.tooLarge(value)) }
  /// The DER ends inside the named element.
  public static func truncated(field: String, offset: Int) -> CNCertificateError {
    CNCertificateError(.truncated(field: field, offset: offset))
  }
  /// The named element's length is not a valid DER length (indefinite, non-minimal or too long).
  public static func invalidLength(field: String, offset: Int) -> CNCertificateError {
    CNCertificateError(.invalidLength(field: field, offset: offset))
  }
  /// The named element has another tag than the certificate structure requires there.
  public static func unexpectedTag(field: String, expected: String, found: UInt8, offset: Int) -> CNCertificateError {
    CNCertificateError(.unexpectedTag(field: field, expected: expected, found: found, offset: offset))
  }
  /// Bytes follow the end of the named element.
  public static func trailingData(field: String, offset: Int) -> CNCertificateError {
    CNCertificateError(.trailingData(field: field, offset: offset))
  }
  /// The named element is tagged correctly but its content is not valid.
  public static func invalidContent(field: String, reason: String) -> CNCertificateError {
    CNCertificateError(.invalidContent(field: field, reason: reason))
  }
  /// The PEM text is not well formed.
  public static func invalidPEM(_ value: String) -> CNCertificateError { CNCertificateError(.invalidPEM(value)) }
  /// The PEM text holds no `CERTIFICATE` block.
  public static let noCertificateInPEM = CNCertificateError(.noCertificateInPEM)
  /// `init(pemEncoded:)` was given several certificates; use `certificates(pemEncoded:)`.
  public static func multipleCertificatesInPEM(_ value: Int) -> CNCertificateError {
    CNCertificateError(.multipleCertificatesInPEM(value))
  }

  /// Every failure with its details (the cases the public factories make).
  package enum Kind: Sendable, Hashable {
    /// No bytes were given.
    case empty
    /// The input is larger than ``CNCertificate/maximumSize``.
    case tooLarge(Int)
    /// The DER ends inside the named element.
    case truncated(field: String, offset: Int)
    /// The named element's length is not a valid DER length (indefinite, non-minimal or too long).
    case invalidLength(field: String, offset: Int)
    /// The named element has another tag than the certificate structure requires there.
    case unexpectedTag(field: String, expected: String, found: UInt8, offset: Int)
    /// Bytes follow the end of the named element.
    case trailingData(field: String, offset: Int)
    /// The named element is tagged correctly but its content is not valid.
    case invalidContent(field: String, reason: String)
    /// The PEM text is not well formed.
    case invalidPEM(String)
    /// The PEM text holds no `CERTIFICATE` block.
    case noCertificateInPEM
    /// `init(pemEncoded:)` was given several certificates; use `certificates(pemEncoded:)`.
    case multipleCertificatesInPEM(Int)

    /// The case's code.
    package var code: Code {
      switch self {
      case .empty: .empty
      case .tooLarge: .tooLarge
      case .truncated: .truncated
      case .invalidLength: .invalidLength
      case .unexpectedTag: .unexpectedTag
      case .trailingData: .trailingData
      case .invalidContent: .invalidContent
      case .invalidPEM: .invalidPEM
      case .noCertificateInPEM: .noCertificateInPEM
      case .multipleCertificatesInPEM: .multipleCertificatesInPEM
      }
    }
  }
}
