// snippet.hide
import CNPinning
import CNPinningSession
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let pinsURL = URL(fileURLWithPath: "pins.json")
// snippet.show
let session = try CNPinnedSession(manager: try CNPinningManager(contentsOf: pinsURL))
let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)
