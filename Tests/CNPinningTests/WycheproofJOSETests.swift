import Foundation
import Testing

@testable import CNPinning

/// Project Wycheproof's JOSE vectors (Tests/Vectors/wycheproof, Apache 2.0; see LICENSE-NOTE
/// there), every one, through the policy verifier: the key as the vector's JWK and as a PEM
/// SubjectPublicKeyInfo made from the same numbers, then `CompactJWS.verify`. A verdict that
/// differs from the vector's is allowed only when it is listed in `knownDivergences` with its
/// reason, and every listed divergence must still occur: a change in either direction fails.
@Suite("Wycheproof JOSE vectors")
struct WycheproofJOSETests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Vectors/wycheproof")

  enum KeyForm: String, CaseIterable, Sendable {
    case jwk
    case pem
  }

  /// One vector's token, the public keys it may be verified with, and the expected verdict.
  struct Vector {
    let file: String
    let id: Int
    let comment: String
    let token: String
    /// The public JWKs of the group (one, or a key set's members); none for HMAC-only groups.
    let keys: [[String: Any]]
    /// "valid", "invalid" or "acceptable".
    let result: String
  }

  static func vectors(_ file: String) throws -> [Vector] {
    let data = try Data(contentsOf: directory.appendingPathComponent(file))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let groups = try #require(root["testGroups"] as? [[String: Any]])
    var vectors: [Vector] = []
    for group in groups {
      var keys: [[String: Any]] = []
      if let key = group["public"] as? [String: Any] {
        keys = (key["keys"] as? [[String: Any]]) ?? [key]
      }
      for test in try #require(group["tests"] as? [[String: Any]]) {
        // A JWE (five segments) or a JSON serialisation is not a compact JWS; it counts below.
        let token = (test["jws"] as? String) ?? (test["jwe"] as? String) ?? ""
        vectors.append(
          Vector(
            file: file, id: try #require(test["tcId"] as? Int), comment: (test["comment"] as? String) ?? "",
            token: token, keys: keys.filter { $0["kty"] as? String != "oct" }, result: try #require(test["result"] as? String)))
      }
    }
    return vectors
  }

  /// The key as the form gives it, or why it was refused.
  static func key(_ jwk: [String: Any], form: KeyForm) -> Result<CNPolicySigningKey, CNPolicyError> {
    do throws(CNPolicyError) {
      switch form {
      case .jwk:
        let data = (try? JSONSerialization.data(withJSONObject: jwk)) ?? Data()
        return .success(try CNPolicySigningKey(jwk: data))
      case .pem:
        return .success(try CNPolicySigningKey(pemEncoded: PEM.encode(subjectPublicKeyInfo(jwk), label: "PUBLIC KEY")))
      }
    } catch {
      return .failure(error)
    }
  }

  /// The SubjectPublicKeyInfo of a public JWK's numbers alone (no `use`, `key_ops` or `alg`).
  static func subjectPublicKeyInfo(_ jwk: [String: Any]) -> [UInt8] {
    func field(_ name: String) -> [UInt8] { (jwk[name] as? String).flatMap { Base64URL.decode($0[...]) } ?? [] }
    if jwk["kty"] as? String == "EC" {
      let curve = CNPublicKeyKind.curves.first { $0.curve.rawValue == jwk["crv"] as? String }?.oid ?? []
      return DERWriter.sequence([
        DERWriter.sequence([DERWriter.objectIdentifier(CNPublicKeyKind.ecPublicKey), DERWriter.objectIdentifier(curve)]),
        DERWriter.bitString([0x04] + field("x") + field("y")),
      ])
    }
    let numbers = DERWriter.sequence([DERWriter.unsignedInteger(field("n")), DERWriter.unsignedInteger(field("e"))])
    return DERWriter.sequence([
      DERWriter.sequence([DERWriter.objectIdentifier(CNPublicKeyKind.rsaEncryption), DERWriter.null]),
      DERWriter.bitString(numbers),
    ])
  }

  /// nil when the verifier accepts the vector's token with one of its keys in `form`; otherwise
  /// why not (the last key's refusal).
  static func refusal(_ vector: Vector, form: KeyForm) -> String? {
    var why = "no public key (an HMAC key: never accepted)"
    for jwk in vector.keys {
      switch key(jwk, form: form) {
      case .failure(let error): why = "key refused: \(error)"
      case .success(let key):
        do throws(CNPolicyError) {
          _ = try CompactJWS.verify(Data(vector.token.utf8), key: key)
          return nil
        } catch {
          why = "\(error)"
        }
      }
    }
    return why
  }

  /// Verdicts that differ from the vectors', by file, key form and tcId, each with its reason.
  static let knownDivergences: [String: [KeyForm: [Int: String]]] = [
    "json_web_signature_test.json": [
      .jwk: hmac([1, 348, 352, 357, 358, 359, 372, 373, 376, 377]).merging(
        [
          346: otherHash, 350: otherHash,
          347: unknownAlg, 351: unknownAlg,
        ], uniquingKeysWith: { first, _ in first }),
      .pem: hmac([1, 348, 352, 357, 358, 359, 372, 373, 376, 377]).merging(
        [
          332: pemHasNoAlg, 334: pemHasNoAlg, 336: pemHasNoAlg, 338: pemHasNoAlg, 340: pemHasNoAlg,
          353: pemHasNoUse, 354: pemHasNoUse, 355: pemHasNoUse, 356: pemHasNoUse,
        ], uniquingKeysWith: { first, _ in first }),
    ],
    "json_web_key_test.json": [
      .jwk: hmac([2, 13, 14, 15]),
      .pem: hmac([2, 13, 14, 15]).merging(
        [6: pemHasNoUse, 19: pemHasNoAlg, 20: pemHasNoAlg, 21: pemHasNoUse], uniquingKeysWith: { first, _ in first }),
    ],
    "json_web_crypto_test.json": [.jwk: hmac([1, 48, 50, 67]), .pem: hmac([1, 48, 50, 67])],
  ]

  /// HS256 and friends: a policy is verified with a public key, never with a shared secret.
  static func hmac(_ ids: [Int]) -> [Int: String] {
    Dictionary(uniqueKeysWithValues: ids.map { ($0, "an HMAC token; policies are verified with public keys only") })
  }
  static let otherHash =
    "the JWK's alg is PS256 and the token PS384: RFC 7517 §4.4 names the algorithm the key is for, and the policy verifier takes only that one (Wycheproof allows another hash of the same scheme)"
  static let unknownAlg =
    "the JWK's alg is \"ES521\", no registered algorithm (RFC 7518 §3.1): a key restricted to an algorithm the verifier does not know is refused, fail closed"
  static let pemHasNoAlg =
    "a PEM key carries no alg: the vector is invalid for its JWK's alg, and the same numbers as PEM verify any algorithm that fits the key"
  static let pemHasNoUse =
    "a PEM key carries no use or key_ops: the vector is invalid for its JWK's, and the same numbers as PEM are a signature key"

  static let files = ["json_web_signature_test.json", "json_web_key_test.json", "json_web_crypto_test.json"]

  @Test(arguments: files)
  func everyVectorAsTheVectorSaysOrAsListed(file: String) throws {
    let vectors = try Self.vectors(file)
    #expect(!vectors.isEmpty)
    for form in KeyForm.allCases {
      var right = 0
      var divergent: [Int: String] = [:]
      for vector in vectors {
        let refusal = Self.refusal(vector, form: form)
        switch (vector.result, refusal) {
        case ("valid", nil), ("invalid", _?), ("acceptable", _): right += 1
        default: divergent[vector.id] = "\(vector.result) (\(vector.comment)), \(refusal.map { "refused: \($0)" } ?? "accepted")"
        }
      }
      let known = Self.knownDivergences[file]?[form] ?? [:]
      for (id, what) in divergent.sorted(by: { $0.key < $1.key }) where known[id] == nil {
        Issue.record("\(file) tcId \(id) with a \(form.rawValue) key: \(what), not a known divergence")
      }
      for (id, reason) in known.sorted(by: { $0.key < $1.key }) where divergent[id] == nil {
        Issue.record("\(file) tcId \(id) with a \(form.rawValue) key now agrees with the vector; remove it (\(reason))")
      }
      print(
        "wycheproof JOSE: \(file), \(form.rawValue) keys: \(vectors.count) vectors, \(right) as the vector says, "
          + "\(divergent.count) known divergences")
    }
  }

  /// The vectors' ROCA-weak key and exponent-1 key are refused for what they are, as JWK and PEM.
  @Test(arguments: KeyForm.allCases)
  func theROCAAndExponentOneKeysAreRefusedAsWeak(form: KeyForm) throws {
    let vectors = try Self.vectors("json_web_key_test.json")
    let roca = try #require(vectors.first { $0.comment == "rejectsKeyWithRocaVulnerability" }?.keys.first)
    let exponentOne = try #require(vectors.first { $0.comment == "rejectsPublicExponent1" }?.keys.first)
    guard case .failure(let refusal) = Self.key(roca, form: form), refusal.code == .weakKey, let why = refusal.reason else {
      Issue.record("the ROCA key was not refused as weak: \(Self.key(roca, form: form))")
      return
    }
    #expect(why.contains("ROCA, CVE-2017-15361"))
    let exponentOneRefusal: CNPolicyError? =
      if case .failure(let error) = Self.key(exponentOne, form: form) { error } else { nil }
    #expect(exponentOneRefusal == .weakKey("its public exponent is 1; an odd exponent of at least 65537 is required"))
  }
}
