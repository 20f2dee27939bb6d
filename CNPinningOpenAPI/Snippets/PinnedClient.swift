// snippet.hide
// The DocC article's example (CNPinningOpenAPI.docc), type-checked by scripts/openapi-check.sh
// against the recorded interfaces and the stand-in for a generated client.
// snippet.show
import CNPinning
import CNPinningOpenAPI
import CNPinningSession
import Foundation

func greeting() async throws -> String {
  let pins = try CNPinningManager(contentsOf: URL(fileURLWithPath: "CNPinning.plist"))
  let session = try CNPinnedSession(manager: pins)
  let client = Client(serverURL: URL(string: "https://api.example.com/v1")!, transport: CNPinnedTransport(session: session))
  do {
    switch try await client.getGreeting() {
    case .ok(let ok):
      guard case .json(let message) = ok.body else { return "" }
      return message
    case .undocumented(let status, _):
      return "status \(status)"
    }
  } catch  where error.pinnedSessionError?.code == .pinMismatch {
    // The server's chain does not carry the pinned names: refused before the request was sent.
    throw error
  }
}
