import CNPinning
import CNPinningSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// snippet.hide
let pinsURL = URL(fileURLWithPath: "pins.json")
let privateRoot = try CNCertificate(pemEncoded: "")
let manager = try CNPinningManager(contentsOf: pinsURL)
// snippet.show
let session = try CNPinnedSession(manager: try CNPinningManager(contentsOf: pinsURL))
let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)

// Session policy lives in its configuration, as URLSession's does:
var configuration = CNPinnedSessionConfiguration()
configuration.trust = .customAnchors([privateRoot])   // the system's anchors by default
configuration.unpinnedHosts = .deny                   // refuse hosts without pins
let strict = try CNPinnedSession(manager: manager, configuration: configuration)
