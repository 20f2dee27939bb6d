/// The hash in a certificate's signature algorithm, as transport-security rules judge it.
public enum CNSignatureHash: Sendable, Hashable, CustomStringConvertible {
  /// The hash of an RSA or ECDSA signature.
  case md5, sha1, sha224, sha256, sha384, sha512
  /// Ed25519/Ed448 sign without a separate hash; they count as strong.
  case eddsa
  /// A signature algorithm this reader knows and transport security never accepts, whatever
  /// its hash (DSA: ATS and the CA/Browser Forum allow RSA, ECDSA and EdDSA only). Its name.
  case forbidden(String)
  /// An algorithm this reader does not know (its OID in dotted form).
  case unknown(String)

  /// SHA-2 with a digest of at least 256 bits, or EdDSA.
  public var isSHA256OrStronger: Bool {
    switch self {
    case .sha256, .sha384, .sha512, .eddsa: return true
    default: return false
    }
  }

  public var description: String {
    switch self {
    case .md5: return "MD5"
    case .sha1: return "SHA-1"
    case .sha224: return "SHA-224"
    case .sha256: return "SHA-256"
    case .sha384: return "SHA-384"
    case .sha512: return "SHA-512"
    case .eddsa: return "EdDSA"
    case .forbidden(let name): return "\(name), a forbidden algorithm"
    case .unknown(let oid): return "an unknown algorithm (\(oid))"
    }
  }

  /// Signature and hash algorithm OIDs (content bytes) and the hash each names. A list searched in
  /// order rather than a dictionary: the first connection of a process reads it, and building a
  /// dictionary of byte arrays costs more there than the comparisons it saves.
  private static let known: [(oid: [UInt8], hash: CNSignatureHash)] = [
    ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x04], .md5),
    ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05], .sha1),
    ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0E], .sha224),
    ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B], .sha256),
    ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0C], .sha384),
    ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0D], .sha512),
    ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x01], .sha1),
    ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x01], .sha224),
    ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02], .sha256),
    ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x03], .sha384),
    ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x04], .sha512),
    ([0x2B, 0x65, 0x70], .eddsa), ([0x2B, 0x65, 0x71], .eddsa),
    // DSA (RFC 3279 §2.2.2, RFC 5758 §3.1).
    ([0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x03], .forbidden("DSA with SHA-1")),
    ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x01], .forbidden("DSA with SHA-224")),
    ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x02], .forbidden("DSA with SHA-256")),
    // Hash OIDs, for the hashAlgorithm inside RSASSA-PSS parameters.
    ([0x2B, 0x0E, 0x03, 0x02, 0x1A], .sha1),
    ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01], .sha256),
    ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02], .sha384),
    ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03], .sha512),
    ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04], .sha224),
  ]

  private static func named(by oid: [UInt8]) -> CNSignatureHash {
    for entry in known where entry.oid == oid { return entry.hash }
    return .unknown(dotted(oid))
  }

  private static let rsassaPSS: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]

  /// Reads the content of an AlgorithmIdentifier (OID, optional parameters). For RSASSA-PSS the
  /// hash comes from the parameters, SHA-1 when they leave it out (RFC 4055's default).
  init(algorithmIdentifier content: [UInt8]) {
    self = content.withUnsafeBufferPointer { bytes -> CNSignatureHash in
      var reader = DERReader(bytes, range: 0..<bytes.count)
      guard let oid = try? reader.read(DERReader.objectIdentifier, "algorithm") else { return .unknown("?") }
      let oidBytes = Array(bytes[oid.content])
      guard oidBytes == Self.rsassaPSS else { return Self.named(by: oidBytes) }
      // RSASSA-PSS-params ::= SEQUENCE { hashAlgorithm [0] HashAlgorithm DEFAULT sha1, … }
      // Absent parameters or hashAlgorithm mean SHA-1; malformed ones name no hash at all.
      if reader.isAtEnd { return .sha1 }
      guard let parameters = try? reader.read(DERReader.sequence, "parameters") else { return .unknown("PSS") }
      var fields = reader.reader(inside: parameters)
      let wrapper: DERElement?
      do {
        wrapper = try fields.readOptional(0xA0, "hashAlgorithm")
      } catch {
        return .unknown("PSS")
      }
      guard let hashWrapper = wrapper else { return .sha1 }
      var inner = fields.reader(inside: hashWrapper)
      guard let algorithm = try? inner.read(DERReader.sequence, "hashAlgorithm") else { return .unknown("PSS") }
      var algorithmFields = inner.reader(inside: algorithm)
      guard let hashOID = try? algorithmFields.read(DERReader.objectIdentifier, "hashAlgorithm") else { return .unknown("PSS") }
      let hashBytes = Array(bytes[hashOID.content])
      return Self.named(by: hashBytes)
    }
  }

  static func dotted(_ oid: [UInt8]) -> String {
    guard let first = oid.first else { return "" }
    var parts = [String(min(Int(first) / 40, 2)), String(Int(first) - min(Int(first) / 40, 2) * 40)]
    var value = 0
    for byte in oid.dropFirst() {
      value = value << 7 | Int(byte & 0x7F)
      if byte & 0x80 == 0 {
        parts.append(String(value))
        value = 0
      }
    }
    return parts.joined(separator: ".")
  }
}
