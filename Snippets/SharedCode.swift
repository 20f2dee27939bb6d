import CNPinning
import CNPinningSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLSession on Linux
#endif

// snippet.hide
let pinsURL = URL(fileURLWithPath: "pins.json")
// snippet.show
let manager = try CNPinningManager(contentsOf: pinsURL)
let session = try URLSession.cnPinned(manager: manager)
await session.cnStartAfreshIfPinsChanged()  // after the pins changed: new TCP connections (Apple)
let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)
