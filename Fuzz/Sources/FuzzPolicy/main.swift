import CNPinning
import CNPinningTestKit
import Foundation
import FuzzDriver
import FuzzKit

// The JWS parser and verifier on raw bytes. The first byte picks the mode: verify the input as
// a token (nothing may crash, and random bytes must never verify), or sign the rest as a payload
// and verify it (payload parsing after a valid signature). Tokens are signed as CNPolicySigner
// signs them, with a key held in memory (reading a PEM key for every input would cost more than
// everything else the target does).
let key = try! TestPrivateKey.generate(.p256)
let verificationKey = try! CNPolicySigningKey(derEncoded: key.subjectPublicKeyInfo)
let moment = Date(timeIntervalSince1970: 1_800_000_000)
let header = base64URL(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8), padded: false)

runFuzzing { bytes in
  guard let mode = bytes.first else { return }
  let rest = Data(bytes.dropFirst())
  if mode & 1 == 0 {
    if (try? CNEnterprisePolicy(token: rest, key: verificationKey, at: moment)) != nil {
      fatalError("an unsigned input verified: \(String(decoding: rest, as: UTF8.self))")
    }
    return
  }
  let signingInput = header + [UInt8(ascii: ".")] + base64URL(Array(rest), padded: false)
  guard let signature = try? key.signature(of: signingInput, digest: .sha256) else { return }
  let token = signingInput + [UInt8(ascii: ".")] + base64URL(signature, padded: false)
  let first = Result { try CNEnterprisePolicy(token: Data(token), key: verificationKey, at: moment) }
  let second = Result { try CNEnterprisePolicy(token: Data(token), key: verificationKey, at: moment) }
  switch (first, second) {
  case (.success(let a), .success(let b)) where a == b: break
  case (.failure(let a as CNPolicyError), .failure(let b as CNPolicyError)) where a == b: break
  default: fatalError("verifying the same token twice gave different results")
  }
}
