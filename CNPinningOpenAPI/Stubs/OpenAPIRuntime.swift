// The declarations of swift-openapi-runtime 1.0 (module OpenAPIRuntime) that CNPinningOpenAPI
// uses, for a type-check without the package (scripts/openapi-check.sh). Written from the
// package's published API (github.com/apple/swift-openapi-runtime, Sources/OpenAPIRuntime:
// Interface/ClientTransport.swift, Interface/HTTPBody.swift, Errors/ClientError.swift,
// Conversion/Configuration.swift;
// Apache-2.0); only the signatures, the bodies trap.
import Foundation
import HTTPTypes

public protocol ClientTransport: Sendable {
  func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
    HTTPResponse, HTTPBody?
  )
}

public final class HTTPBody: @unchecked Sendable, Equatable, Hashable {
  public typealias ByteChunk = ArraySlice<UInt8>
  public enum IterationBehavior: Sendable {
    case single
    case multiple
  }
  public enum Length: Sendable, Equatable {
    case unknown
    case known(Int)
  }
  public var iterationBehavior: IterationBehavior { fatalError() }
  public var length: Length { fatalError() }
  private init(never: Never) {}
  public convenience init() { fatalError() }
  public convenience init(_ bytes: ByteChunk) { fatalError() }
  public convenience init<Bytes: AsyncSequence>(_ sequence: Bytes, length: Length, iterationBehavior: IterationBehavior)
  where Bytes.Element == ByteChunk, Bytes: Sendable { fatalError() }
  public static func == (lhs: HTTPBody, rhs: HTTPBody) -> Bool { fatalError() }
  public func hash(into hasher: inout Hasher) { fatalError() }
}

extension HTTPBody: AsyncSequence {
  public typealias Element = ByteChunk
  public typealias AsyncIterator = Iterator
  public func makeAsyncIterator() -> Iterator { fatalError() }
  public struct Iterator: AsyncIteratorProtocol {
    public typealias Element = ByteChunk
    public mutating func next() async throws -> ByteChunk? { fatalError() }
  }
}

/// The error a generated client throws: what failed, with the transport's error underneath.
public struct ClientError: Error {
  public var operationID: String
  public var underlyingError: any Error
}

public protocol ClientMiddleware: Sendable {
  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?)
}

/// A generated client's coding options (date formats and the like).
public struct Configuration: Sendable {
  public init() {}
}
