import CNPinning
import FuzzDriver
import FuzzKit

// The JWS verifier and payload reader on generated tokens (PolicyGenerator): headers, payloads,
// encodings and signatures of the input's choosing, by the right key, another key or none.
let keys = try! PolicyGenerator.Keys()
let verificationKeys = try! keys.privateKeys.map { try CNPolicySigningKey(derEncoded: $0.subjectPublicKeyInfo) }
runFuzzing { bytes in
  var input = FuzzInput(bytes)
  Oracles.policy(PolicyGenerator.generate(&input, keys: keys), keys: keys, verificationKeys: verificationKeys)
}
