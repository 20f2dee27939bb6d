import CNPinning
import CNPinningSession
import Foundation

// snippet.hide
let enterprisePublicKeyPEM = ""
let pinsURL = URL(fileURLWithPath: "pins.json")
let supportFolder = FileManager.default.temporaryDirectory
// snippet.show
let manager = try CNPinningManager(
  contentsOf: pinsURL,
  enterprise: try CNEnterpriseOptions(
    authenticationHost: "auth.example.com",
    policySigningKey: try CNPolicySigningKey(pemEncoded: enterprisePublicKeyPEM)))

// At launch, before the first request: the last good policy and its anti-rollback mark.
let store = CNPolicyStore(fileURL: supportFolder.appendingPathComponent("pins-policy.json"))
do {
  try manager.restoreEnterprisePolicy(from: store)
} catch {
  print("the pins policy was not restored (the app's own pins apply): \(error)")
}

// Fetched over normal TLS without the app's pins, from any host: the signature decides.
let rescue = try CNPolicyRescue(
  manager: manager, url: URL(string: "https://pins.example-cdn.net/app/pins.jws")!, store: store)
rescue.start(every: .seconds(6 * 3600))
