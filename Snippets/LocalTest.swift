import CNPinning
import CNPinningSession
import Foundation

// api.example.com:8443 is 127.0.0.1; only the test's root is trusted; the production pins apply.
var configuration = CNPinnedSessionConfiguration()
configuration.resolve = [CNHostOverride(host: "api.example.com", port: 8443, address: "127.0.0.1")]
configuration.trust = .customAnchors([
  try CNCertificate(pemEncoded: String(contentsOfFile: "test-root.pem", encoding: .utf8))
])
let manager = try CNPinningManager(contentsOf: URL(fileURLWithPath: "pins.json"))
let session = try CNPinnedSession(manager: manager, configuration: configuration)
let (data, response) = try await session.data(from: URL(string: "https://api.example.com:8443/health")!)
print(response.statusCode, data.count)
