// snippet.hide
// URLSessionConfiguration.cnPinned is Linux-only (Apple platforms: URLSession.cnPinned).
#if os(Linux) && !CNPINNING_APPLE_CHECK
// snippet.show
import CNPinning
import CNPinningSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// snippet.hide
let manager = try CNPinningManager(configuration: [:])
// snippet.show
let session = URLSession(configuration: try .cnPinned(manager: manager))       // was: .default
let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)
// snippet.hide
#endif
