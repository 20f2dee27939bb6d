import CNPinning
import Foundation

// snippet.hide
let enterprisePublicKeyPEM = ""
let pinsURL = URL(fileURLWithPath: "pins.json")
let policyFileURL = URL(fileURLWithPath: "policy.jws")
// snippet.show
let manager = try CNPinningManager(
  contentsOf: pinsURL,
  enterprise: try CNEnterpriseOptions(
    authenticationHost: "auth.example.com",
    policySigningKey: try CNPolicySigningKey(pemEncoded: enterprisePublicKeyPEM)))
try manager.applyEnterprisePolicy(with: Data(contentsOf: policyFileURL))
