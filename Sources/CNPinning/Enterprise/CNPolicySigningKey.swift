import Foundation

/// The public key that every enterprise policy must be signed with: RSA (2048 bits or more, an
/// odd public exponent of at least 65537, not ROCA-weak) or EC P-256/P-384/P-521, read from PEM
/// or DER (SubjectPublicKeyInfo) or a JWK. A private key, a malformed or weak key, and a JWK
/// whose `use`, `key_ops` or `alg` say it is not for verifying signatures are refused here,
/// before any policy is seen.
public struct CNPolicySigningKey: Sendable, Hashable {
  /// The largest RSA key a policy can be verified with: OpenSSL's limit for a public-key
  /// operation (`OPENSSL_RSA_MAX_MODULUS_BITS`).
  public static let maximumRSABits = 16384

  /// The DER SubjectPublicKeyInfo.
  public let subjectPublicKeyInfo: [UInt8]
  /// The key's type and size.
  public let kind: CNPublicKeyKind
  /// The one algorithm the key verifies when its JWK names one (`alg`, RFC 7517 §4.4); nil
  /// allows every algorithm that fits the key.
  public let algorithm: CNJWSAlgorithm?

  /// Reads a DER SubjectPublicKeyInfo.
  public init(derEncoded der: [UInt8]) throws(CNPolicyError) {
    try self.init(derEncoded: der, algorithm: nil)
  }

  private init(derEncoded der: [UInt8], algorithm: CNJWSAlgorithm?) throws(CNPolicyError) {
    // Private key formats (PKCS #8, PKCS #1, SEC 1) start with an INTEGER; SPKI with a SEQUENCE.
    if der.count > 4, der[0] == 0x30, Self.firstInnerTag(der) == 0x02 { throw .privateKeyGiven }
    let kind: CNPublicKeyKind
    do {
      kind = try CNPublicKeyKind(subjectPublicKeyInfo: der)
    } catch {
      throw .malformedKey(error.problem)
    }
    switch kind {
    case .rsa(let bits) where bits < 2048: throw .rsaKeyTooSmall(bits: bits)
    // Refused before anything reads the modulus: OpenSSL verifies no signature with a larger
    // key (OPENSSL_RSA_MAX_MODULUS_BITS), and an 8-million-bit key took 0.3 s to load.
    case .rsa(let bits) where bits > Self.maximumRSABits: throw .rsaKeyTooLarge(bits: bits)
    case .rsa:
      guard let numbers = RSAPublicNumbers(subjectPublicKeyInfo: der) else { throw .malformedKey("the RSA key cannot be read") }
      if let problem = WeakRSAKey.problem(numbers) { throw .weakKey(problem) }
    case .ec(.p256), .ec(.p384), .ec(.p521): break
    default: throw .unsupportedKey(kind.description)
    }
    if let algorithm, !algorithm.fits(kind) {
      throw .keyDoesNotFitAlgorithm(algorithm: algorithm.rawValue, key: kind.description)
    }
    guard SignatureBackend.canUse(subjectPublicKeyInfo: der) else {
      throw .malformedKey("the platform's crypto library cannot use it")
    }
    self.subjectPublicKeyInfo = der
    self.kind = kind
    self.algorithm = algorithm
  }

  /// Reads a PEM `PUBLIC KEY` block.
  public init(pemEncoded text: String) throws(CNPolicyError) {
    let blocks: [(label: String, der: [UInt8])]
    do {
      blocks = try PEM.blocks(in: text)
    } catch {
      throw .malformedKey("invalid PEM: \(error.problem)")
    }
    if blocks.contains(where: { $0.label.contains("PRIVATE KEY") }) { throw .privateKeyGiven }
    guard blocks.count == 1, blocks[0].label == "PUBLIC KEY" else {
      throw .malformedKey("expected exactly one \"-----BEGIN PUBLIC KEY-----\" block")
    }
    try self.init(derEncoded: blocks[0].der)
  }

  /// Reads a JSON Web Key (RFC 7517) with `kty` RSA (`n`, `e`) or EC (`crv`, `x`, `y`). Its
  /// `use` must be `sig` and its `key_ops` include `verify` when present; an `alg` restricts the
  /// key to that algorithm (``algorithm``).
  public init(jwk: Data) throws(CNPolicyError) {
    let value: ConfigValue
    do {
      value = try StrictJSON.parse([UInt8](jwk))
    } catch {
      throw .malformedKey("the JWK is not valid JSON: \(error)")
    }
    guard case .dictionary(let members) = value else { throw .malformedKey("the JWK is not a JSON object") }
    let keys = Set(members.map(\.key))
    if !keys.isDisjoint(with: ["d", "p", "q", "dp", "dq", "qi", "k"]) { throw .privateKeyGiven }
    func field(_ name: String) throws(CNPolicyError) -> [UInt8] {
      guard case .string(let text)? = value[name], let bytes = Base64URL.decode(text[...]), !bytes.isEmpty else {
        throw .malformedKey("the JWK has no valid base64url \"\(name)\"")
      }
      return bytes
    }
    guard case .string(let type)? = value["kty"] else { throw .malformedKey("the JWK has no \"kty\"") }
    let algorithm = try Self.signatureRestrictions(of: value)
    switch type {
    case "RSA":
      let key = DERWriter.sequence([DERWriter.unsignedInteger(try field("n")), DERWriter.unsignedInteger(try field("e"))])
      try self.init(
        derEncoded: DERWriter.sequence([
          DERWriter.sequence([DERWriter.objectIdentifier(CNPublicKeyKind.rsaEncryption), DERWriter.null]),
          DERWriter.bitString(key),
        ]), algorithm: algorithm)
    case "EC":
      guard case .string(let curveName)? = value["crv"],
        let (oid, curve) = CNPublicKeyKind.curves.first(where: { $0.curve.rawValue == curveName }).map({ ($0.oid, $0.curve) })
      else { throw .unsupportedKey("an EC key on a curve other than P-256, P-384 or P-521") }
      let x = try field("x")
      let y = try field("y")
      guard x.count == curve.coordinateSize, y.count == curve.coordinateSize else {
        throw .malformedKey("the JWK's coordinates are not \(curve.coordinateSize) bytes long")
      }
      try self.init(
        derEncoded: DERWriter.sequence([
          DERWriter.sequence([DERWriter.objectIdentifier(CNPublicKeyKind.ecPublicKey), DERWriter.objectIdentifier(oid)]),
          DERWriter.bitString([0x04] + x + y),
        ]), algorithm: algorithm)
    default:
      throw .unsupportedKey("a JWK of type \"\(type)\"")
    }
  }

  /// What a JWK's `use`, `key_ops` and `alg` (RFC 7517 §4.2–4.4) allow: refuses a key that is
  /// not for verifying signatures, and returns the one algorithm `alg` names (nil without one).
  private static func signatureRestrictions(of jwk: ConfigValue) throws(CNPolicyError) -> CNJWSAlgorithm? {
    switch jwk["use"] {
    case nil: break
    case .string("sig")?: break
    case .string(let use)?: throw .keyNotForSignatures("its \"use\" is \(VisibleText.quoted(use)), not \"sig\"")
    default: throw .malformedKey("the JWK's \"use\" is not a string")
    }
    if let operations = jwk["key_ops"] {
      guard case .array(let values) = operations else { throw .malformedKey("the JWK's \"key_ops\" is not an array") }
      var names: [String] = []
      for value in values {
        guard case .string(let name) = value else {
          throw .malformedKey("the JWK's \"key_ops\" holds a value that is not a string")
        }
        names.append(name)
      }
      guard names.contains("verify") else {
        throw .keyNotForSignatures(
          "its \"key_ops\" [\(names.map { VisibleText.quoted($0) }.joined(separator: ", "))] do not include \"verify\"")
      }
    }
    switch jwk["alg"] {
    case nil: return nil
    case .string(let name)?:
      guard let algorithm = CNJWSAlgorithm(headerValue: name) else {
        throw .keyNotForSignatures("its \"alg\" is \(VisibleText.quoted(name)), which is not an RS, PS or ES signature algorithm")
      }
      return algorithm
    default: throw .malformedKey("the JWK's \"alg\" is not a string")
    }
  }

  private static func firstInnerTag(_ der: [UInt8]) -> UInt8? {
    let lengthBytes = der[1] < 0x80 ? 0 : Int(der[1] & 0x7F)
    let index = 2 + lengthBytes
    return index < der.count ? der[index] : nil
  }
}
