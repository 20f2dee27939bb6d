import CNPinning
import Foundation

// snippet.hide
let enterprisePublicKeyPEM = ""
let pinsURL = URL(fileURLWithPath: "pins.json")
let policyFileURL = URL(fileURLWithPath: "policy.jws")
// snippet.show
let manager = try CNPinningManager(
  authenticationHost: "auth.example.com",
  policySigningKey: try CNPolicySigningKey(pemEncoded: enterprisePublicKeyPEM),
  contentsOf: pinsURL)
try manager.applyEnterprisePolicy(with: Data(contentsOf: policyFileURL))
