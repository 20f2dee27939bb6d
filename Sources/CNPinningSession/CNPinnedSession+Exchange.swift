import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A streaming exchange in plain Swift types, for adapters such as an OpenAPI client transport:
// the request's body and the response's each stream, a chunk at a time, with back-pressure.
extension CNPinnedSession {
  /// Sends `request` and returns once the response head has arrived, its body to read as it
  /// comes. The same pins, transport-security rules, redirects, cookies, credentials, limits
  /// (`maximumDownloadSize` for the body), errors and events as `bytes(for:)`: a server that
  /// fails the pins is refused before any byte of the request is sent. A body given as a
  /// sequence is read only as it is sent. Throws `CNPinnedSessionError`; cancelling the task
  /// cancels the exchange, and reading the body afterwards reads it as `bytes(for:)` does.
  public func exchange(_ request: CNHTTPRequest) async throws -> CNHTTPResponse {
    let (urlRequest, upload) = try request.plan(timeout: configuration.timeoutIntervalForRequest)
    if case .chunks(let chunks)? = upload, chunks.length == 0 {
      // No transport asks for a body of length 0: the sequence must be seen to be empty here.
      _ = try await chunks.next(host: urlRequest.url?.host ?? "")
    }
    let (outcome, body) = try await engine.exchange(
      urlRequest, upload: upload, into: ResponseBodyChannel.self, label: request.label)
    return CNHTTPResponse(
      statusCode: outcome.statusCode, headerFields: outcome.fields, url: outcome.url ?? request.url,
      body: AsyncBytes(body))
  }
}

extension CNHTTPRequest {
  /// The request as the session's engine takes it: a `URLRequest` (fields with one name joined
  /// by ", ", under the first spelling) and the body to stream, if it is a sequence. A
  /// `Content-Length` field gives a sequence its length; one that contradicts the body's is an
  /// error.
  func plan(timeout: TimeInterval) throws(CNPinnedSessionError) -> (URLRequest, UploadSource?) {
    var request = URLRequest(url: url)
    // GET is URLRequest's own; its setter compares the name with every method it knows.
    if method != "GET" { request.httpMethod = method }
    request.timeoutInterval = timeoutInterval ?? timeout
    var spellings: [String: String] = [:]
    var values: [String: [String]] = [:]
    for field in headerFields {
      let key = field.name.lowercased()
      if spellings[key] == nil { spellings[key] = field.name }
      values[key, default: []].append(field.value)
    }
    for (key, joined) in values { request.setValue(joined.joined(separator: ", "), forHTTPHeaderField: spellings[key]!) }
    guard let body else { return (request, nil) }
    let declared = values["content-length"].map { $0.joined(separator: ", ") }
    var length = body.length
    if let declared {
      guard let stated = Int(declared), stated >= 0 else {
        throw .invalidArgument("the request's Content-Length field is not a length: \(declared)")
      }
      if let known = length, known != stated {
        throw .invalidArgument("the request's Content-Length field (\(stated)) differs from its body's length (\(known))")
      }
      length = stated
    }
    switch body.content {
    case .data(let data):
      request.httpBody = data
      return (request, nil)
    case .chunks(let make):
      return (request, .chunks(make(length)))
    }
  }
}
