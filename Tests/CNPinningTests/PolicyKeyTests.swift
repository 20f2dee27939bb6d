// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Policy-signing keys")
struct PolicyKeyTests {
  @Test(arguments: [TestKeyType.rsa2048, .rsa3072, .p256, .p384, .p521])
  func publicKeysLoadFromPEMDERAndJWK(_ type: TestKeyType) async throws {
    try await offTheSharedThreads {
      let key = try TestPrivateKey.shared(type, slot: 41)
      let fromPEM = try CNPolicySigningKey(pemEncoded: try key.publicKeyPEM)
      #expect(try CNPolicySigningKey(derEncoded: key.subjectPublicKeyInfo) == fromPEM)
      // A JWK made by an independent implementation.
      let jwk = try await python(
        "import sys, json; from cryptography.hazmat.primitives import serialization; from jwt.algorithms import RSAAlgorithm, ECAlgorithm; k = serialization.load_pem_public_key(sys.argv[1].encode()); print(RSAAlgorithm.to_jwk(k) if hasattr(k, 'public_numbers') and hasattr(k.public_numbers(), 'n') else ECAlgorithm.to_jwk(k))",
        [try key.publicKeyPEM])
      #expect(try CNPolicySigningKey(jwk: Data(jwk.utf8)) == fromPEM)
    }
  }

  /// The forms Apple's SecKeyCopyExternalRepresentation gives (PKCS #1 for RSA, the X9.63 point
  /// for EC), as an independent implementation writes them, read into the same key.
  @Test(arguments: [TestKeyType.rsa2048, .p256, .p384, .p521])
  func securityFrameworkExternalRepresentationsLoad(_ type: TestKeyType) async throws {
    try await offTheSharedThreads {
      let key = try TestPrivateKey.shared(type, slot: 41)
      let isRSA = type == .rsa2048
      let hex = try await python(
        "import sys; from cryptography.hazmat.primitives import serialization as s; k = s.load_pem_public_key(sys.argv[1].encode()); "
          + (isRSA
            ? "print(k.public_bytes(s.Encoding.DER, s.PublicFormat.PKCS1).hex())"
            : "print(k.public_bytes(s.Encoding.X962, s.PublicFormat.UncompressedPoint).hex())"),
        [try key.publicKeyPEM])
      let bytes = stride(from: 0, to: hex.count, by: 2).map { offset in
        UInt8(hex[hex.index(hex.startIndex, offsetBy: offset)...].prefix(2), radix: 16)!
      }
      let loaded = try CNPolicySigningKey(externalRepresentation: bytes, type: isRSA ? .rsa : .ellipticCurve)
      #expect(loaded == (try CNPolicySigningKey(derEncoded: key.subjectPublicKeyInfo)))
    }
  }

  @Test func externalRepresentationsOfOtherShapesAreRefused() {
    #expect(throws: CNPolicyError.self) {
      try CNPolicySigningKey(externalRepresentation: [0x04] + [UInt8](repeating: 1, count: 40), type: .ellipticCurve)
    }
    #expect(throws: CNPolicyError.self) {
      try CNPolicySigningKey(externalRepresentation: [0x02] + [UInt8](repeating: 1, count: 64), type: .ellipticCurve)
    }
    #expect(throws: CNPolicyError.self) { try CNPolicySigningKey(externalRepresentation: [0x30, 0x00], type: .rsa) }
  }

  @Test func privateKeysAreRefused() throws {
    let key = try TestPrivateKey.shared(.p256, slot: 41)
    #expect(throws: CNPolicyError.privateKeyGiven) { try CNPolicySigningKey(pemEncoded: try key.pemEncoded) }
    let pkcs8 = try #require(
      Data(base64Encoded: try key.pemEncoded.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()))
    #expect(throws: CNPolicyError.privateKeyGiven) { try CNPolicySigningKey(derEncoded: [UInt8](pkcs8)) }
    let jwk = #"{"kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA", "d": "AAAA"}"#
    #expect(throws: CNPolicyError.privateKeyGiven) { try CNPolicySigningKey(jwk: Data(jwk.utf8)) }
  }

  @Test func weakAndUnsupportedKeysAreRefused() throws {
    #expect(throws: CNPolicyError.rsaKeyTooSmall(bits: 1024)) {
      try CNPolicySigningKey(pemEncoded: try TestPrivateKey.shared(.rsa1024, slot: 41).publicKeyPEM)
    }
    #expect(throws: CNPolicyError.unsupportedKey("Ed25519")) {
      try CNPolicySigningKey(pemEncoded: try TestPrivateKey.shared(.ed25519, slot: 41).publicKeyPEM)
    }
  }

  /// An RSA key larger than OpenSSL verifies with is refused, saying so, before its modulus is
  /// read (an 8,388,608-bit modulus used to load, in 0.3 s, and could then verify nothing).
  @Test(arguments: [16_392, 65_536])
  func rsaKeysLargerThanOpenSSLVerifiesAreRefused(_ bits: Int) throws {
    var modulus = [UInt8](repeating: 0xA5, count: bits / 8)
    modulus[0] = 0xC3
    modulus[modulus.count - 1] = 0x0B
    let n = Data(modulus).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    let jwk = #"{"kty": "RSA", "e": "AQAB", "n": "\#(n)"}"#
    #expect(throws: CNPolicyError.rsaKeyTooLarge(bits: bits)) { try CNPolicySigningKey(jwk: Data(jwk.utf8)) }
    #expect(CNPolicyError.rsaKeyTooLarge(bits: bits).description.contains("at most 16384"))
  }

  /// An RSA key's exponent must be odd and at least 65537, whichever form it comes in: with
  /// e = 1 every value is its own signature.
  @Test(arguments: [(1, false), (3, false), (65535, false), (65538, false), (65537, true), (65539, true)])
  func rsaExponentsBelow65537OrEvenAreRefused(_ exponent: Int, _ accepted: Bool) async throws {
    try await offTheSharedThreads {
      let key = try TestPrivateKey.shared(.rsa2048, slot: 41)
      let jwk = try #require(try JSONSerialization.jsonObject(with: Data(try await rsaJWK(key).utf8)) as? [String: Any])
      let modulus = try #require(jwk["n"] as? String)
      let bytes = withUnsafeBytes(of: UInt32(exponent).bigEndian) { Array($0.drop { $0 == 0 }) }
      let modified = try JSONSerialization.data(withJSONObject: ["kty": "RSA", "n": modulus, "e": base64URL(bytes)])
      if accepted {
        #expect(throws: Never.self) { try CNPolicySigningKey(jwk: modified) }
      } else {
        #expect(
          throws: CNPolicyError.weakKey("its public exponent is \(exponent); an odd exponent of at least 65537 is required")
        ) {
          try CNPolicySigningKey(jwk: modified)
        }
      }
    }
  }

  /// A JWK's use, key_ops and alg (RFC 7517 §4.2–4.4) say what the key may do.
  @Test func jwkUseKeyOpsAndAlgRestrictTheKey() async throws {
    try await offTheSharedThreads {
      let key = try TestPrivateKey.shared(.p256, slot: 41)
      let base = try #require(try JSONSerialization.jsonObject(with: Data(try await ecJWK(key).utf8)) as? [String: Any])
      func load(_ extra: [String: Any]) throws(CNPolicyError) -> CNPolicySigningKey {
        try CNPolicySigningKey(
          jwk: (try? JSONSerialization.data(withJSONObject: base.merging(extra) { _, new in new })) ?? Data())
      }
      #expect(throws: CNPolicyError.keyNotForSignatures(#"its "use" is "enc", not "sig""#)) { try load(["use": "enc"]) }
      #expect(throws: CNPolicyError.keyNotForSignatures(#"its "key_ops" ["encrypt"] do not include "verify""#)) {
        try load(["key_ops": ["encrypt"]])
      }
      #expect(
        throws: CNPolicyError.keyNotForSignatures(#"its "alg" is "HS256", which is not an RS, PS or ES signature algorithm"#)
      ) {
        try load(["alg": "HS256"])
      }
      #expect(throws: CNPolicyError.keyDoesNotFitAlgorithm(algorithm: "ES384", key: "EC P-256")) { try load(["alg": "ES384"]) }
      #expect(throws: CNPolicyError.malformedKey(#"the JWK's "key_ops" is not an array"#)) { try load(["key_ops": "verify"]) }
      #expect(try load(["use": "sig", "key_ops": ["verify"], "alg": "ES256"]).algorithm == .es256)
      #expect(try load([:]).algorithm == nil)
    }
  }

  @Test(arguments: [
    "", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
    "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
  ])
  func malformedPEMIsRefused(_ text: String) {
    #expect(throws: CNPolicyError.self) { try CNPolicySigningKey(pemEncoded: text) }
  }

  @Test(arguments: [
    #"{"kty": "oct", "k": "c2VjcmV0"}"#, #"{"kty": "RSA", "n": "AQAB"}"#, #"{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}"#,
    #"{"kty": "EC", "crv": "secp256k1", "x": "AA", "y": "AA"}"#, "[]", "{", #"{"kty": "RSA", "n": "+/", "e": "AQAB"}"#,
  ])
  func malformedJWKIsRefused(_ text: String) {
    #expect(throws: CNPolicyError.self) { try CNPolicySigningKey(jwk: Data(text.utf8)) }
  }

  func rsaJWK(_ key: TestPrivateKey) async throws -> String {
    try await python(
      "import sys; from cryptography.hazmat.primitives import serialization; from jwt.algorithms import RSAAlgorithm; print(RSAAlgorithm.to_jwk(serialization.load_pem_public_key(sys.argv[1].encode())))",
      [try key.publicKeyPEM])
  }

  func ecJWK(_ key: TestPrivateKey) async throws -> String {
    try await python(
      "import sys; from cryptography.hazmat.primitives import serialization; from jwt.algorithms import ECAlgorithm; print(ECAlgorithm.to_jwk(serialization.load_pem_public_key(sys.argv[1].encode())))",
      [try key.publicKeyPEM])
  }

  func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  @Test func randomBytesAreRefusedAsDER() {
    var generator = SystemRandomNumberGenerator()
    for length in [0, 1, 2, 10, 91, 300] {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      #expect(throws: CNPolicyError.self) { try CNPolicySigningKey(derEncoded: bytes) }
    }
  }
}
#endif
