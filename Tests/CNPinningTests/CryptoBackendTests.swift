import Foundation
import Testing

@testable import CNPinning

#if CNPINNING_LINUX_BACKEND
import CNPinningTestKit
#endif

/// The crypto backends, tested through their protocols with public known-answer vectors. The
/// typealiases pick OpenSSL here and Security/CryptoKit on Apple platforms, so the same tests
/// judge whichever backend the platform uses.
@Suite("Crypto backends")
struct CryptoBackendTests {
  static func digest<Backend: SHA256Hashing>(_ backend: Backend.Type, _ text: String) -> String {
    Array(text.utf8).withUnsafeBytes { Backend.hash($0) }.map { String(format: "%02x", $0) }.joined()
  }

  @Test func sha256KnownAnswers() {
    #expect(Self.digest(SHA256Backend.self, "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(Self.digest(SHA256Backend.self, "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  }

  /// RFC 7515, appendix A.3: an ES256 JWS and its public key.
  static let rfcKey =
    #"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#
  static let rfcSigningInput =
    "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
  static let rfcSignature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

  static func verifies<Backend: SignatureVerifying>(_ backend: Backend.Type, signingInput: String, signature: [UInt8]) throws
    -> Bool
  {
    let key = try CNPolicySigningKey(jwk: Data(Self.rfcKey.utf8))
    #expect(Backend.canUse(subjectPublicKeyInfo: key.subjectPublicKeyInfo))
    return Backend.verify(.es256, key: key.subjectPublicKeyInfo, message: Array(signingInput.utf8), signature: signature)
  }

  @Test func rfc7515ES256VectorVerifies() throws {
    let signature = try #require(Base64URL.decode(Self.rfcSignature[...]))
    #expect(signature.count == 64)
    #expect(try Self.verifies(SignatureBackend.self, signingInput: Self.rfcSigningInput, signature: signature))
    // The same signature in DER form verifies too; a changed input does not.
    let der = try #require(JOSESignature.derFromRaw(signature, coordinateSize: 32))
    #expect(try Self.verifies(SignatureBackend.self, signingInput: Self.rfcSigningInput, signature: der))
    #expect(JOSESignature.rawFromDER(der, coordinateSize: 32) == signature)
    #expect(try !Self.verifies(SignatureBackend.self, signingInput: Self.rfcSigningInput + "x", signature: signature))
  }

  #if CNPINNING_LINUX_BACKEND
  /// What the Security backend hands Security (issue 53, item 3: shared, where it was
  /// Apple-only): each key's type, size and the key inside its SPKI, nothing for a key Security
  /// is not asked to take, and an ECDSA signature's DER form before its raw one.
  @Test func theSecurityBackendIsHandedTheKeyInsideTheSPKIAndDERSignaturesFirst() throws {
    for (type, expected, keyBytes) in [
      (TestKeyType.rsa2048, CNPolicySigningKey.ExternalKeyType.rsa, 2048), (.p256, .ellipticCurve, 256),
      (.p384, .ellipticCurve, 384), (.p521, .ellipticCurve, 521),
    ] {
      let spki = try TestPrivateKey.shared(type).subjectPublicKeyInfo
      let form = try #require(SecurityKeyForm(subjectPublicKeyInfo: spki), "\(type)")
      #expect(form.type == expected && form.bits == keyBytes, "\(type)")
      // The key is the tail of the SPKI: its BIT STRING's content after the unused-bits byte.
      #expect(Array(spki.suffix(form.key.count)) == form.key, "\(type)")
      #expect(form.key.first == (expected == .rsa ? 0x30 : 0x04), "\(type)")
    }
    #expect(SecurityKeyForm(subjectPublicKeyInfo: try TestPrivateKey.shared(.ed25519).subjectPublicKeyInfo) == nil)
    #expect(SecurityKeyForm(subjectPublicKeyInfo: [0x30, 0x00]) == nil)

    let raw = [UInt8](repeating: 1, count: 64)
    let candidates = JOSESignature.derCandidates(raw, for: .es256)
    #expect(candidates.count == 2 && candidates[0] == JOSESignature.derFromRaw(raw, coordinateSize: 32) && candidates[1] == raw)
    #expect(JOSESignature.derCandidates(raw, for: .rs256) == [raw])
    #expect(JOSESignature.derCandidates([1, 2, 3], for: .es384) == [[1, 2, 3]])
  }
  #endif
}
