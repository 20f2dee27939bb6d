import Foundation

/// The public key that every enterprise policy must be signed with: RSA (2048 bits or more) or
/// EC P-256/P-384/P-521, read from PEM or DER (SubjectPublicKeyInfo) or a JWK. A private key or a
/// malformed key is refused here, before any policy is seen.
public struct CNPolicySigningKey: Sendable, Hashable {
  /// The DER SubjectPublicKeyInfo.
  public let subjectPublicKeyInfo: [UInt8]
  /// The key's type and size.
  public let kind: PublicKeyKind

  /// Reads a DER SubjectPublicKeyInfo.
  public init(derEncoded der: [UInt8]) throws(CNPolicyError) {
    // Private key formats (PKCS #8, PKCS #1, SEC 1) start with an INTEGER; SPKI with a SEQUENCE.
    if der.count > 4, der[0] == 0x30, Self.firstInnerTag(der) == 0x02 { throw .privateKeyGiven }
    let kind: PublicKeyKind
    do {
      kind = try PublicKeyKind(subjectPublicKeyInfo: der)
    } catch {
      throw .malformedKey(error.problem)
    }
    switch kind {
    case .rsa(let bits) where bits < 2048: throw .rsaKeyTooSmall(bits: bits)
    case .rsa, .ec(.p256), .ec(.p384), .ec(.p521): break
    default: throw .unsupportedKey(kind.description)
    }
    guard SignatureBackend.canUse(subjectPublicKeyInfo: der) else {
      throw .malformedKey("the platform's crypto library cannot use it")
    }
    self.subjectPublicKeyInfo = der
    self.kind = kind
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

  /// Reads a JSON Web Key (RFC 7517) with `kty` RSA (`n`, `e`) or EC (`crv`, `x`, `y`).
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
    switch type {
    case "RSA":
      let key = DERWriter.sequence([DERWriter.unsignedInteger(try field("n")), DERWriter.unsignedInteger(try field("e"))])
      try self.init(
        derEncoded: DERWriter.sequence([
          DERWriter.sequence([DERWriter.objectIdentifier(PublicKeyKind.rsaEncryption), DERWriter.null]),
          DERWriter.bitString(key),
        ]))
    case "EC":
      guard case .string(let curveName)? = value["crv"],
        let (oid, curve) = PublicKeyKind.curves.first(where: { $0.curve.rawValue == curveName }).map({ ($0.oid, $0.curve) })
      else { throw .unsupportedKey("an EC key on a curve other than P-256, P-384 or P-521") }
      let x = try field("x")
      let y = try field("y")
      guard x.count == curve.coordinateSize, y.count == curve.coordinateSize else {
        throw .malformedKey("the JWK's coordinates are not \(curve.coordinateSize) bytes long")
      }
      try self.init(
        derEncoded: DERWriter.sequence([
          DERWriter.sequence([DERWriter.objectIdentifier(PublicKeyKind.ecPublicKey), DERWriter.objectIdentifier(oid)]),
          DERWriter.bitString([0x04] + x + y),
        ]))
    default:
      throw .unsupportedKey("a JWK of type \"\(type)\"")
    }
  }

  private static func firstInnerTag(_ der: [UInt8]) -> UInt8? {
    let lengthBytes = der[1] < 0x80 ? 0 : Int(der[1] & 0x7F)
    let index = 2 + lengthBytes
    return index < der.count ? der[index] : nil
  }
}
