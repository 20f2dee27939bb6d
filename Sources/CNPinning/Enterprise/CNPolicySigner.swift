import Foundation

/// Signs enterprise policies (for tools such as `cnpin policy sign`; apps only verify). Needs the
/// OpenSSL backend: on Apple platforms it throws.
public struct CNPolicySigner: Sendable {
  let privateKeyPEM: String
  /// The public key that verifies this signer's policies.
  public let verificationKey: CNPolicySigningKey

  /// Uses a PEM private key (PKCS #8, or PKCS #1/SEC 1): RSA of 2048 bits or more, or EC
  /// P-256/P-384/P-521.
  public init(privateKeyPEM: String) throws(CNPolicyError) {
    self.privateKeyPEM = privateKeyPEM
    self.verificationKey = try CNPolicySigningKey(derEncoded: try SigningBackend.publicKeyInfo(privateKeyPEM: privateKeyPEM))
  }

  /// A compact JWS of `payload` (JSON bytes). The algorithm defaults to RS256 for RSA and
  /// ES256/384/512 by curve; it must fit the key.
  public func sign(payload: Data, algorithm: CNJWSAlgorithm? = nil) throws(CNPolicyError) -> String {
    guard let algorithm = algorithm ?? CNJWSAlgorithm.defaultAlgorithm(for: verificationKey.kind) else {
      throw .unsupportedKey(verificationKey.kind.description)
    }
    guard algorithm.fits(verificationKey.kind) else {
      throw .keyDoesNotFitAlgorithm(algorithm: algorithm.rawValue, key: verificationKey.kind.description)
    }
    let header = Base64URL.encode(Array(#"{"alg":"\#(algorithm.rawValue)","typ":"JWT"}"#.utf8))
    let signingInput = header + "." + Base64URL.encode(payload)
    let signature = try SigningBackend.sign(algorithm, privateKeyPEM: privateKeyPEM, message: Array(signingInput.utf8))
    return signingInput + "." + Base64URL.encode(signature)
  }
}
