// snippet.hide
// The DocC article's example (CNPinningOpenAPI.docc): built by `swift build` here against the
// real packages, and type-checked by scripts/openapi-check.sh against the recorded interfaces.
// The generated client it uses is a stand-in, at the end of this file (hidden in the article).
// snippet.show
import CNPinning
import CNPinningOpenAPI
import CNPinningSession
import Foundation
import OpenAPIRuntime

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

// snippet.hide
// The shape of what swift-openapi-generator 1.x writes for a client (Client.swift: a struct
// made from a server URL, a transport and middlewares, one async method per operation taking an
// Input and returning an Output), for type-checking the DocC article's example. Written from the
// generator's documentation (swiftpackageindex.com/apple/swift-openapi-generator, "Generating a
// client in a Swift package"); one operation, getGreeting, stands for any.
struct Client: Sendable {
  init(
    serverURL: URL, configuration: Configuration = .init(), transport: any ClientTransport,
    middlewares: [any ClientMiddleware] = []
  ) { fatalError() }
  func getGreeting(_ input: Operations.getGreeting.Input = .init()) async throws -> Operations.getGreeting.Output {
    fatalError()
  }
}

enum Operations {
  // The generator names an operation's namespace by its operationId, as written.
  // swift-format-ignore: TypeNamesShouldBeCapitalized
  enum getGreeting {
    struct Input: Sendable {}
    enum Output: Sendable {
      case ok(Ok)
      case undocumented(statusCode: Int, UndocumentedPayload)
      struct Ok: Sendable {
        var body: Body
        enum Body: Sendable {
          case json(String)
        }
      }
    }
  }
}

struct UndocumentedPayload: Sendable {}
