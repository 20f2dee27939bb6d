#if canImport(Security)
import CNPinning
import Foundation

/// A request through a session pinned with the seed's delegate: a refusal told from a cancel.
func load(_ url: URL, session: URLSession, manager: CNPinningManager) async -> String {
  do {
    let (data, _) = try await session.data(from: url)
    return String(decoding: data, as: UTF8.self)
  } catch {
    if let refusal = manager.refusal(explaining: error) {
      return "refused: \(refusal.reason)"  // a pin or trust refusal, not the user's cancel
    }
    return "failed: \(error)"
  }
}
#endif
