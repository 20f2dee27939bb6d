// snippet.hide
import CNPinning
import Foundation

let pinsURL = URL(fileURLWithPath: "pins.json")
let key = try CNPolicySigningKey(pemEncoded: "")
// snippet.show
let manager = try CNPinningManager(
  contentsOf: pinsURL,
  enterprise: try CNEnterpriseOptions(authenticationHost: "auth.example.com", policySigningKey: key))
