import CNPinningSession
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A `ClientTransport` that sends a generated OpenAPI client's requests through a
/// `CNPinnedSession`: every connection is judged by the session's pins before a byte of the
/// request is sent, on Linux as on Apple platforms. Bodies stream both ways, a chunk at a time,
/// never collected whole. A pin failure reaches the caller as the session's error, inside the
/// client's `ClientError` (`error.pinnedSessionError?.code == .pinMismatch`).
public struct CNPinnedTransport: ClientTransport {
  /// The session the requests go through: its pins, trust, redirects, cookies and limits.
  public let session: CNPinnedSession

  /// A transport over `session`.
  public init(session: CNPinnedSession) {
    self.session = session
  }

  /// Sends `request` to `baseURL` joined with its path, the operation ID as the request's label
  /// (carried by the session's connection events). Cancelling the task cancels the exchange
  /// (thrown as `CancellationError`); the session's timeouts apply and throw its `timedOut`.
  public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
    HTTPResponse, HTTPBody?
  ) {
    let exchange = CNHTTPRequest(
      method: request.method.rawValue, url: try Self.url(of: request, under: baseURL),
      headerFields: request.headerFields.map { CNHTTPField(name: $0.name.rawName, value: $0.value) },
      body: try body.map(Self.body), label: operationID)
    let response: CNHTTPResponse
    do {
      response = try await session.exchange(exchange)
    } catch let error as CNPinnedSessionError where error.code == .cancelled {
      throw CancellationError()
    }
    return (try Self.head(of: response), Self.body(of: response))
  }

  /// The base URL with the request's path and query appended (the path keeps its percent
  /// encoding).
  static func url(of request: HTTPRequest, under baseURL: URL) throws -> URL {
    let path = request.path ?? ""
    guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
      let requested = URLComponents(string: path)
    else {
      throw CNPinnedSessionError.invalidURL("\(baseURL.absoluteString) with the path \(String(reflecting: path))")
    }
    components.percentEncodedPath += requested.percentEncodedPath
    components.percentEncodedQuery = requested.percentEncodedQuery
    guard let url = components.url else {
      throw CNPinnedSessionError.invalidURL("\(baseURL.absoluteString) with the path \(String(reflecting: path))")
    }
    return url
  }

  /// The request body as the session reads it: each chunk as the body yields it. A length this
  /// platform's `Int` cannot hold (on a 32-bit watch) is refused with `invalidArgument`.
  static func body(_ body: HTTPBody) throws -> CNHTTPRequest.Body {
    let length: Int?
    switch body.length {
    case .known(let count):
      guard let count = Int(exactly: count) else {
        throw CNPinnedSessionError.invalidArgument("the request body's length \(count) does not fit this platform's Int")
      }
      length = count
    case .unknown: length = nil
    }
    return CNHTTPRequest.Body(RequestChunks(body: body), length: length)
  }

  /// The response's status and fields. A field name that HTTP does not allow fails the request,
  /// naming it (escaped).
  static func head(of response: CNHTTPResponse) throws -> HTTPResponse {
    var fields = HTTPFields()
    for field in response.headerFields {
      guard let name = HTTPField.Name(field.name) else {
        throw CNPinnedSessionError.invalidResponse(
          host: response.url.host ?? "", reason: "the header field name \(String(reflecting: field.name)) is not a token")
      }
      fields.append(HTTPField(name: name, value: field.value))
    }
    return HTTPResponse(status: .init(code: response.statusCode), headerFields: fields)
  }

  /// The response body as the client reads it, once, with the length the session framed it by
  /// (`expectedContentLength`: none when content-coded, chunked or not stated).
  static func body(of response: CNHTTPResponse) -> HTTPBody {
    HTTPBody(
      ResponseChunks(body: response.body), length: response.expectedContentLength.map { .known($0) } ?? .unknown,
      iterationBehavior: .single)
  }
}

/// An `HTTPBody`'s chunks as `Data`, for the session.
struct RequestChunks: AsyncSequence, Sendable {
  typealias Element = Data
  let body: HTTPBody

  func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

  struct Iterator: AsyncIteratorProtocol {
    var base: HTTPBody.AsyncIterator
    mutating func next() async throws -> Data? { try await base.next().map { Data($0) } }
  }
}

/// The session's response chunks as `HTTPBody.ByteChunk`s, for the client.
struct ResponseChunks: AsyncSequence, Sendable {
  typealias Element = HTTPBody.ByteChunk
  let body: CNPinnedSession.AsyncBytes

  func makeAsyncIterator() -> Iterator { Iterator(base: body.chunks.makeAsyncIterator()) }

  struct Iterator: AsyncIteratorProtocol {
    var base: CNPinnedSession.AsyncBytes.Chunks.Iterator
    mutating func next() async throws -> HTTPBody.ByteChunk? { try await base.next().map { HTTPBody.ByteChunk($0) } }
  }
}

extension Error {
  /// The `CNPinnedSessionError` this error is, or wraps as an OpenAPI `ClientError`'s
  /// underlying error: `error.pinnedSessionError?.code == .pinMismatch`.
  public var pinnedSessionError: CNPinnedSessionError? {
    if let error = self as? CNPinnedSessionError { return error }
    if let error = self as? ClientError { return error.underlyingError.pinnedSessionError }
    return nil
  }
}
