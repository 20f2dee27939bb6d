import CNPinning
import CNPinningTestKit
import Foundation

/// The JWS parser and verifier. The first byte picks the mode: verify the input as a token
/// (nothing may crash, and random bytes must never verify), or sign the rest as a payload and
/// verify it (payload parsing after a valid signature).
private let key = try! TestPrivateKey.generate(.p256)
private let signer = try! CNPolicySigner(privateKeyPEM: try! key.pemEncoded)
private let verificationKey = signer.verificationKey
private let moment = Date(timeIntervalSince1970: 1_800_000_000)


func fuzzPolicy(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size > 0 else { return 0 }
  let rest = Data(bytes: data + 1, count: size - 1)
  if data[0] & 1 == 0 {
    if (try? CNEnterprisePolicy(token: rest, key: verificationKey, at: moment)) != nil {
      fatalError("an unsigned input verified: \(String(decoding: rest, as: UTF8.self))")
    }
    return 0
  }
  guard let token = try? signer.sign(payload: rest) else { return 0 }
  let first = Result { try CNEnterprisePolicy(token: Data(token.utf8), key: verificationKey, at: moment) }
  let second = Result { try CNEnterprisePolicy(token: Data(token.utf8), key: verificationKey, at: moment) }
  switch (first, second) {
  case (.success(let a), .success(let b)) where a == b: break
  case (.failure(let a as CNPolicyError), .failure(let b as CNPolicyError)) where a == b: break
  default: fatalError("verifying the same token twice gave different results")
  }
  return 0
}
