import CNPinning
import CNPinningSession
import Foundation

// Your private CA's root, from the PEM file you deploy with the service or app.
let root = try CNCertificate(pemEncoded: String(contentsOfFile: "corporate-root.pem", encoding: .utf8))
var configuration = CNPinnedSessionConfiguration()
configuration.trust = .customAnchors([root])  // only this root; .systemAndCustomAnchors([root]) adds it to the system's
let manager = try CNPinningManager(configuration: [
  "api.internal": CNConfiguration([
    CNChain([
      CNChainLink(.exact, "Corporate Root CA"),
      CNChainLink(.prefixWithNumber, "Corporate Issuing CA "),  // … CA 1, CA 2: the space is part of the name
      CNChainLink(.exact, "api.internal"),
    ])
  ])
])
let session = try CNPinnedSession(manager: manager, configuration: configuration)
