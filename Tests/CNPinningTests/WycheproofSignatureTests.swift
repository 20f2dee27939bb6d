import Foundation
import Testing

@testable import CNPinning

/// Project Wycheproof's signature vectors (Tests/Vectors/wycheproof, Apache 2.0; see LICENSE-NOTE
/// there) for the algorithms a policy may use, through the platform's signature backend: the
/// group's SubjectPublicKeyInfo, the message and the signature as the vector gives them. ECDSA
/// comes in both forms the policy verifier accepts (DER, and JOSE's raw r ‖ s as IEEE P1363).
/// "valid" must verify and "invalid" must not; "acceptable" may go either way and is counted.
/// A verdict that differs is allowed only when listed in `knownDivergences` with its reason,
/// and every listed one must still occur.
@Suite("Wycheproof signature vectors")
struct WycheproofSignatureTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Vectors/wycheproof")

  /// Each file and the JWS algorithm whose hash, padding and curve it tests.
  static let files: [String: CNJWSAlgorithm] = [
    "ecdsa_secp256r1_sha256_test.json": .es256, "ecdsa_secp256r1_sha256_p1363_test.json": .es256,
    "ecdsa_secp384r1_sha384_test.json": .es384, "ecdsa_secp521r1_sha512_p1363_test.json": .es512,
    "rsa_signature_2048_sha256_test.json": .rs256, "rsa_signature_2048_sha384_test.json": .rs384,
    "rsa_pss_2048_sha256_mgf1_32_test.json": .ps256, "rsa_pss_2048_sha384_mgf1_48_test.json": .ps384,
  ]

  /// "file#tcId" of the vectors whose verdict differs from Wycheproof's, with the reason.
  static let knownDivergences: [String: String] = [:]

  static func bytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index != hex.endIndex {
      bytes.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return bytes
  }

  @Test(arguments: files.keys.sorted())
  func everyVectorAsTheVectorSaysOrAsListed(file: String) throws {
    let algorithm = try #require(Self.files[file])
    let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let groups = try #require(root["testGroups"] as? [[String: Any]])
    var counts = (vectors: 0, acceptable: 0, acceptableVerified: 0)
    var divergences: [String: String] = [:]
    for group in groups {
      let key = Self.bytes(try #require(group["publicKeyDer"] as? String))
      for test in try #require(group["tests"] as? [[String: Any]]) {
        let id = try #require(test["tcId"] as? Int)
        let result = try #require(test["result"] as? String)
        let verified = SignatureBackend.verify(
          algorithm, key: key, message: Self.bytes(try #require(test["msg"] as? String)),
          signature: Self.bytes(try #require(test["sig"] as? String)))
        counts.vectors += 1
        switch result {
        case "valid" where !verified, "invalid" where verified:
          divergences["\(file)#\(id)"] = "\(result), \(verified ? "verified" : "refused"): \(test["comment"] ?? "")"
        case "acceptable":
          counts.acceptable += 1
          if verified { counts.acceptableVerified += 1 }
        default: break
        }
      }
    }
    #expect(counts.vectors > 100)
    let listed = Self.knownDivergences.filter { $0.key.hasPrefix(file + "#") }
    #expect(Set(divergences.keys) == Set(listed.keys), "divergences: \(divergences)")
    print(
      "wycheproof \(file) (\(algorithm)): \(counts.vectors) vectors, \(divergences.count) divergences, "
        + "\(counts.acceptableVerified) of \(counts.acceptable) acceptable verified")
  }
}
