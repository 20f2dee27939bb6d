import CNPinning
import CNPinningSession
import SwiftUI

/// Test makes one request through a URLSession pinned with the app's configuration and shows
/// whether the pins held, or exactly why they did not.
struct ContentView: View {
  @State private var address = "https://api.example.com/"
  @State private var outcome = "Tap Test to make a pinned request."

  var body: some View {
    VStack(spacing: 16) {
      TextField("https:// URL of a host in Pinning.plist", text: $address)
      Button("Test") { Task { outcome = await PinnedRequest.run(address) } }
      Text(outcome)
    }
    .padding()
  }
}

/// The request, kept apart from the view so that it reads as the code an app would have.
enum PinnedRequest {
  /// The manager, read once from the configuration in the app's resources (in an Xcode app
  /// target, put the same `CNPinningManager` dictionary in Info.plist and use `CNPinningManager()`).
  static let manager: Result<CNPinningManager, any Error> = Result {
    guard let url = Bundle.module.url(forResource: "Pinning", withExtension: "plist") else {
      throw CocoaError(.fileNoSuchFile)
    }
    return try CNPinningManager(contentsOf: url)
  }

  /// One pinned session for the app's life, as an app should hold it: a URLSession keeps its
  /// delegate and connections until invalidated, so a new one per tap would pile them up.
  static let session: Result<URLSession, any Error> = Result { try URLSession.cnPinned(manager: try manager.get()) }

  static func run(_ address: String) async -> String {
    guard let url = URL(string: address), url.scheme == "https" else { return "Give an https:// URL." }
    do {
      let (data, response) = try await session.get().data(from: url)
      let status = (response as? HTTPURLResponse)?.statusCode ?? 0
      return "Pinned: \(url.host ?? "") answered \(status) with \(data.count) bytes."
    } catch {
      return "Refused: \(error)"
    }
  }
}
