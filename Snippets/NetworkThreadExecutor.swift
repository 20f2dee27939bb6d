// snippet.hide
import CNPinning
import CNPinningSession
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func handle(_ answer: (Data, HTTPURLResponse)) throws {}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
// snippet.show
func fetchAll(_ urls: [URL], with session: CNPinnedSession) async throws {
  try await withTaskExecutorPreference(session.executor) {
    for url in urls { try handle(try await session.data(from: url)) }
  }
}
