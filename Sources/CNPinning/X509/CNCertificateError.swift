extension CNCertificateError: CustomStringConvertible {
  public var description: String {
    switch kind {
    case .invalidPEM, .noCertificateInPEM: return "not a PEM certificate: \(problem)"
    case .multipleCertificatesInPEM: return problem
    default: return "not a certificate: \(problem)"
    }
  }

  /// What is wrong, without saying what was being read (a certificate, or a key whose DER the
  /// certificate reader's parts read).
  package var problem: String {
    switch kind {
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

extension CNCertificateError {
  /// The DER element at fault, when the failure is about one.
  public var field: String? {
    switch kind {
    case .truncated(let field, _), .invalidLength(let field, _), .unexpectedTag(let field, _, _, _),
      .trailingData(let field, _), .invalidContent(let field, _):
      field
    default: nil
    }
  }

  /// The byte offset at which the problem was found, when it has one.
  public var offset: Int? {
    switch kind {
    case .truncated(_, let offset), .invalidLength(_, let offset), .unexpectedTag(_, _, _, let offset),
      .trailingData(_, let offset):
      offset
    default: nil
    }
  }
}
