/// Why bytes or text could not be read as a certificate.
public enum CNCertificateError: Error, Sendable, Hashable {
  /// No bytes were given.
  case empty
  /// The input is larger than `CNCertificate.maximumSize`.
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
}

extension CNCertificateError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .invalidPEM, .noCertificateInPEM: return "not a PEM certificate: \(problem)"
    case .multipleCertificatesInPEM: return problem
    default: return "not a certificate: \(problem)"
    }
  }

  /// What is wrong, without saying what was being read (a certificate, or a key whose DER the
  /// certificate reader's parts read).
  package var problem: String {
    switch self {
    case .empty:
      return "no bytes"
    case .tooLarge(let size):
      return "\(size) bytes exceeds the \(CNCertificate.maximumSize)-byte limit"
    case .truncated(let field, let offset):
      return "\(field) is truncated (at byte \(offset))"
    case .invalidLength(let field, let offset):
      return "\(field) has an invalid DER length (at byte \(offset))"
    case .unexpectedTag(let field, let expected, let found, let offset):
      let hex = String(found, radix: 16, uppercase: true)
      return "expected \(expected) for \(field), found tag 0x\(hex) (at byte \(offset))"
    case .trailingData(let field, let offset):
      return "unexpected bytes after \(field) (at byte \(offset))"
    case .invalidContent(let field, let reason):
      return "\(field) \(reason)"
    case .invalidPEM(let reason):
      return reason
    case .noCertificateInPEM:
      return "no \"-----BEGIN CERTIFICATE-----\" block"
    case .multipleCertificatesInPEM(let count):
      return "the PEM text holds \(count) certificates where one was expected; "
        + "read a bundle with CNCertificate.certificates(pemEncoded:)"
    }
  }
}
