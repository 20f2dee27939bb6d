// The shape of what swift-openapi-generator 1.x writes for a client (Client.swift: a struct
// made from a server URL, a transport and middlewares, one async method per operation taking an
// Input and returning an Output), for type-checking the DocC article's example. Written from the
// generator's documentation (swiftpackageindex.com/apple/swift-openapi-generator, "Generating a
// client in a Swift package"); one operation, getGreeting, stands for any.
import Foundation
import OpenAPIRuntime

public struct Client: Sendable {
  public init(
    serverURL: URL, configuration: Configuration = .init(), transport: any ClientTransport,
    middlewares: [any ClientMiddleware] = []
  ) { fatalError() }
  public func getGreeting(_ input: Operations.getGreeting.Input = .init()) async throws -> Operations.getGreeting.Output {
    fatalError()
  }
}

public enum Operations {
  public enum getGreeting {
    public struct Input: Sendable {
      public init() {}
    }
    public enum Output: Sendable {
      case ok(Ok)
      case undocumented(statusCode: Int, UndocumentedPayload)
      public struct Ok: Sendable {
        public var body: Body
        public enum Body: Sendable {
          case json(String)
        }
      }
    }
  }
}

public struct UndocumentedPayload: Sendable {}
