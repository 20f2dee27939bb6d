/// Keys as Apple's Security framework exports them (`SecKeyCopyExternalRepresentation`), so that
/// the seed's `policySigningKey: SecKey` keeps working. Platform-neutral, and tested on Linux.
extension CNPolicySigningKey {
  /// The key types the Security framework exports in these forms.
  public enum ExternalKeyType: Sendable {
    /// PKCS #1 `RSAPublicKey` (DER).
    case rsa
    /// The uncompressed X9.63 point `04 ‖ X ‖ Y` on P-256, P-384 or P-521.
    case ellipticCurve
  }

  /// Reads a public key in the Security framework's external representation.
  public init(externalRepresentation bytes: [UInt8], type: ExternalKeyType) throws(CNPolicyError) {
    switch type {
    case .rsa:
      try self.init(
        derEncoded: DERWriter.sequence([
          DERWriter.sequence([DERWriter.objectIdentifier(CNPublicKeyKind.rsaEncryption), DERWriter.null]),
          DERWriter.bitString(bytes),
        ]))
    case .ellipticCurve:
      let coordinate = (bytes.count - 1) / 2
      guard bytes.first == 0x04, bytes.count % 2 == 1,
        let oid = CNPublicKeyKind.curves.first(where: { $0.curve.coordinateSize == coordinate && $0.curve != .other })?.oid
      else {
        throw .malformedKey(
          "an EC key must be an uncompressed P-256, P-384 or P-521 point (04 ‖ X ‖ Y), not \(bytes.count) bytes")
      }
      try self.init(
        derEncoded: DERWriter.sequence([
          DERWriter.sequence([DERWriter.objectIdentifier(CNPublicKeyKind.ecPublicKey), DERWriter.objectIdentifier(oid)]),
          DERWriter.bitString(bytes),
        ]))
    }
  }
}
