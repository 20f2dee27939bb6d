import Foundation

/// An X.509 certificate as CNPinning sees it: its Common Names, its public key and its hashes,
/// read by a small strict DER reader that works the same on every platform.
///
/// Two certificates are equal when their DER encodings are equal.
public struct CNCertificate: Sendable, Hashable {
  /// Inputs larger than this are refused.
  public static let maximumSize = 1 << 20

  /// Why a certificate has no Common Name usable for pinning; such a certificate matches no link.
  public enum CommonNameProblem: Sendable, Hashable, CustomStringConvertible {
    /// The subject has no CN attribute.
    case missing
    /// The last CN is of a type that is not a supported string type, or its bytes are invalid
    /// for its type (the type's name).
    case undecodable(String)
    /// The last CN contains a NUL character.
    case containsNUL

    public var description: String {
      switch self {
      case .missing: return "the subject has no Common Name"
      case .undecodable(let type): return "the Common Name (\(type)) does not decode"
      case .containsNUL: return "the Common Name contains a NUL character"
      }
    }
  }

  /// The certificate's DER encoding.
  public let derEncoded: [UInt8]
  /// The Common Name used for pinning: the last CN attribute of the subject, or nil when there is
  /// none or it cannot be read safely (see ``commonNameProblem``).
  public let commonName: String?
  /// Why ``commonName`` is nil.
  public let commonNameProblem: CommonNameProblem?
  /// Every CN attribute of the subject in order, for display (undecodable bytes are replaced).
  public let subjectCommonNames: [String]
  /// Every CN attribute of the issuer in order, for display (undecodable bytes are replaced).
  public let issuerCommonNames: [String]
  /// Every CN attribute of the subject in order, strictly decoded: nil where one does not decode.
  package let subjectCommonNameValues: [String?]
  /// Every CN attribute of the issuer in order, strictly decoded: nil where one does not decode.
  package let issuerCommonNameValues: [String?]
  /// The start of the validity period.
  public let notValidBefore: Date
  /// The end of the validity period.
  public let notValidAfter: Date
  /// The type and size of the certificate's public key, read (and checked) with the certificate.
  public let publicKeyKind: CNPublicKeyKind

  let subjectRange: Range<Int>
  let issuerRange: Range<Int>
  let subjectPublicKeyInfoRange: Range<Int>
  let signatureAlgorithmRange: Range<Int>
  /// Where the serial number's content and each extension lie in ``derEncoded``.
  package let serialNumberRange: Range<Int>
  package let extensions: [CertificateExtension]

  /// Reads a DER-encoded certificate. Throws ``CNCertificateError`` for anything that is not exactly
  /// one well-formed certificate.
  public init(derEncoded: some DataProtocol) throws {
    let bytes = [UInt8](derEncoded)
    guard !bytes.isEmpty else { throw CNCertificateError.empty }
    guard bytes.count <= Self.maximumSize else { throw CNCertificateError.tooLarge(bytes.count) }
    let parsed = try bytes.withUnsafeBufferPointer { buffer throws(CNCertificateError) in
      try CertificateParser.parse(buffer)
    }
    self.derEncoded = bytes
    self.subjectRange = parsed.subject
    self.issuerRange = parsed.issuer
    self.subjectPublicKeyInfoRange = parsed.subjectPublicKeyInfo
    self.signatureAlgorithmRange = parsed.signatureAlgorithm
    self.serialNumberRange = parsed.serialNumber
    self.extensions = parsed.extensions
    self.notValidBefore = parsed.notBefore
    self.notValidAfter = parsed.notAfter
    self.publicKeyKind = parsed.publicKeyKind
    self.subjectCommonNames = parsed.subjectCommonNames.map(\.display)
    self.issuerCommonNames = parsed.issuerCommonNames.map(\.display)
    self.subjectCommonNameValues = parsed.subjectCommonNames.map(\.strict)
    self.issuerCommonNameValues = parsed.issuerCommonNames.map(\.strict)
    switch parsed.subjectCommonNames.last {
    case .none:
      (commonName, commonNameProblem) = (nil, .missing)
    case .undecodable(let tag, _)?:
      (commonName, commonNameProblem) = (nil, .undecodable(DirectoryString.typeName(tag)))
    case .text(let text)?:
      if text.utf8.contains(0) {
        (commonName, commonNameProblem) = (nil, .containsNUL)
      } else {
        (commonName, commonNameProblem) = (text, nil)
      }
    }
  }

  /// Reads exactly one PEM `CERTIFICATE` block. Text outside the block is ignored.
  public init(pemEncoded: String) throws {
    let blocks = try PEM.certificateBlocks(in: pemEncoded)
    guard blocks.count == 1 else {
      throw blocks.isEmpty ? CNCertificateError.noCertificateInPEM : .multipleCertificatesInPEM(blocks.count)
    }
    try self.init(derEncoded: blocks[0])
  }

  /// Reads every PEM `CERTIFICATE` block, in order (a bundle). Throws when there is none.
  public static func certificates(pemEncoded: String) throws -> [CNCertificate] {
    let blocks = try PEM.certificateBlocks(in: pemEncoded)
    guard !blocks.isEmpty else { throw CNCertificateError.noCertificateInPEM }
    return try blocks.map { try CNCertificate(derEncoded: $0) }
  }

  /// The DER of the SubjectPublicKeyInfo (algorithm and public key).
  public var subjectPublicKeyInfo: [UInt8] { Array(derEncoded[subjectPublicKeyInfoRange]) }

  /// Base64 of the SHA-256 of the SubjectPublicKeyInfo: the value of
  /// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
  public var spkiSHA256Base64: String {
    let digest = derEncoded.withUnsafeBufferPointer {
      SHA256Digest.hash(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[subjectPublicKeyInfoRange])))
    }
    return Data(digest).base64EncodedString()
  }

  /// SHA-256 of the whole DER certificate.
  public var sha256: [UInt8] {
    derEncoded.withUnsafeBytes { SHA256Digest.hash($0) }
  }

  /// The certificate in PEM form.
  public var pemEncoded: String { PEM.encode(derEncoded, label: "CERTIFICATE") }

  /// The hash the issuer signed this certificate with.
  public var signatureHash: CNSignatureHash { CNSignatureHash(algorithmIdentifier: Array(derEncoded[signatureAlgorithmRange])) }

  /// Whether subject and issuer are the same name (a root or another self-issued certificate).
  public var isSelfIssued: Bool { derEncoded[subjectRange] == derEncoded[issuerRange] }

  /// Whether `other` is the same CA: the same subject name, byte for byte, and the same key (a
  /// root and its cross-signed twin are).
  package func isSameCA(as other: CNCertificate) -> Bool {
    derEncoded[subjectRange] == other.derEncoded[other.subjectRange] && subjectPublicKeyInfo == other.subjectPublicKeyInfo
  }

  /// Whether this certificate's issuer is `other`'s subject (by name, byte for byte).
  package func isIssued(byNameOf other: CNCertificate) -> Bool {
    derEncoded[issuerRange] == other.derEncoded[other.subjectRange]
  }

  public static func == (lhs: CNCertificate, rhs: CNCertificate) -> Bool { lhs.derEncoded == rhs.derEncoded }
  public func hash(into hasher: inout Hasher) { hasher.combine(derEncoded) }
}

extension CNCertificate {
  /// How the certificate is named where a chain is printed (raw: the printer escapes it): its
  /// Common Name; without a usable one (a CN-less leaf, issue 64), its subjectAltName entries, or
  /// why it has no CN when it has neither.
  package var displayName: String {
    if let commonName { return commonName }
    return Self.displayName(commonName: nil, altNames: subjectAltNameEntries, problem: commonNameProblem)
  }

  /// ``displayName`` from a certificate's parts: its CN, else its subjectAltName entries, else why.
  package static func displayName(commonName: String?, altNames: [String], problem: CommonNameProblem?) -> String {
    if let commonName { return commonName }
    guard altNames.isEmpty else { return "(no CN; SAN " + altNames.joined(separator: ", ") + ")" }
    return "(no usable CN: \(problem.map { "\($0)" } ?? "none"))"
  }
}

extension CNCertificate: CustomStringConvertible {
  public var description: String {
    "CNCertificate(CN: \(commonName.map { VisibleText.quoted($0) } ?? "none (\(commonNameProblem!))"))"
  }
}
