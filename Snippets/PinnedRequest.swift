import CNPinning
import CNPinningSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let manager = try CNPinningManager(contentsOf: URL(fileURLWithPath: "pins.json"))
let session = try CNPinnedSession(manager: manager)
let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)
print(response.statusCode, data.count)
