import Foundation

/// Which certificates of the verified chain a hash pin may match.
public enum CNPinScope: String, Sendable, Hashable, Codable, CaseIterable {
  /// Only the leaf (the server's own certificate).
  case leaf
  /// Only CA certificates: every certificate above the leaf, the trust anchor included.
  case ca
  /// Any certificate of the verified chain.
  case any

  func includes(position: Int, chainLength: Int) -> Bool {
    switch self {
    case .leaf: return position == 0
    case .ca: return position > 0
    case .any: return position < chainLength
    }
  }
}

/// A pin on a certificate's public key: base64 of the SHA-256 of its SubjectPublicKeyInfo (the
/// value of the openssl pipeline in ``CNCertificate/spkiSHA256Base64``). Survives certificate
/// renewals that keep the key.
public struct CNSPKIPin: Sendable, Hashable {
  /// Base64 of the SHA-256 of the public key (SubjectPublicKeyInfo).
  public let sha256Base64: String
  /// Which certificates of the verified chain the pin may match.
  public let scope: CNPinScope

  /// Throws `CNConfigurationError.Problem.invalidDigest` unless `sha256Base64` is base64 of exactly 32 bytes.
  public init(sha256Base64: String, scope: CNPinScope = .any) throws(CNConfigurationError) {
    _ = try Digest.decode(sha256Base64)
    self.sha256Base64 = sha256Base64
    self.scope = scope
  }

  /// The pin for `certificate`'s key.
  public init(certificate: CNCertificate, scope: CNPinScope = .any) {
    self.sha256Base64 = certificate.spkiSHA256Base64
    self.scope = scope
  }
}

/// A pin on a whole certificate: base64 of the SHA-256 of its DER encoding. Breaks at every
/// renewal; use it for certificates you control.
public struct CNCertificatePin: Sendable, Hashable {
  /// Base64 of the SHA-256 of the whole DER certificate.
  public let sha256Base64: String
  /// Which certificates of the verified chain the pin may match.
  public let scope: CNPinScope
  /// The certificate file the pin was read from, when a configuration named one (kept so that
  /// conversions between formats keep the reference).
  public let file: String?

  /// Throws `CNConfigurationError.Problem.invalidDigest` unless `sha256Base64` is base64 of exactly 32 bytes.
  public init(sha256Base64: String, scope: CNPinScope = .any) throws(CNConfigurationError) {
    _ = try Digest.decode(sha256Base64)
    self.sha256Base64 = sha256Base64
    self.scope = scope
    self.file = nil
  }

  /// The pin for `certificate` (read from `file`, when it came from one).
  public init(certificate: CNCertificate, scope: CNPinScope = .any, file: String? = nil) {
    self.sha256Base64 = Data(certificate.sha256).base64EncodedString()
    self.scope = scope
    self.file = file
  }
}

/// Base64 SHA-256 digests as pins write them.
enum Digest {
  static func decode(_ text: String) throws(CNConfigurationError) -> [UInt8] {
    guard let data = Data(base64Encoded: text) else {
      throw CNConfigurationError(.invalidDigest(text, reason: "is not valid base64"))
    }
    guard data.count == SHA256Digest.byteCount else {
      throw CNConfigurationError(.invalidDigest(text, reason: "decodes to \(data.count) bytes; a SHA-256 digest has 32"))
    }
    return [UInt8](data)
  }
}

/// What SPKI and certificate pins share: a digest and the certificates it may match.
protocol HashPin {
  var sha256Base64: String { get }
  var scope: CNPinScope { get }
}

extension CNSPKIPin: HashPin {}
extension CNCertificatePin: HashPin {}
