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
  /// (`maximumDownloadSize` for the body), errors and events as ``bytes(for:)``: a server that
  /// fails the pins is refused before any byte of the request is sent. A body given as a
  /// sequence is read only as it is sent. Throws ``CNPinnedSessionError``; cancelling the task
  /// cancels the exchange, and reading the body afterwards reads it as ``bytes(for:)`` does. On
  /// Apple platforms, as for ``bytes(for:)``, experimental: the stream's connection is judged at
  /// its end.
  public func exchange(_ request: CNHTTPRequest) async throws -> CNHTTPResponse {
    let sent = try SessionRequest(request)
    if case .upload(.chunks(let chunks)) = sent.body, chunks.length == 0 {
      // No transport asks for a body of length 0: the sequence must be seen to be empty here.
      _ = try await chunks.next(host: sent.url.host ?? "")
    }
    let (outcome, body) = try await engine.exchange(consume sent, into: ResponseBodyChannel.self)
    return CNHTTPResponse(outcome, url: outcome.url ?? request.url, body: AsyncBytes(body))
  }
}

extension SessionRequest {
  /// `request` as the session sends it: its fields in order, with their repeats; a sequence's
  /// length stated by `Content-Length` when the body gives none. A negative length, and a
  /// `Content-Length` that is not a plain decimal or contradicts the body, are refused with
  /// `invalidArgument` (`statedLength`), before anything is sent.
  /// Each property set once, not through the memberwise initialiser, whose delegation copied
  /// the whole request twice more (issue 68).
  init(_ request: borrowing CNHTTPRequest) throws(CNPinnedSessionError) {
    method = request.method
    url = request.url
    fields = request.headerFields
    timeout = request.timeoutInterval.flatMap(BoundedInterval.init)
    label = request.label
    guard let body = request.body else {
      self.body = .none
      return
    }
    if let length = body.length, length < 0 {
      throw .invalidArgument("the request body's length is \(length); give nil for a length not known, or the number of bytes")
    }
    switch body.content {
    case .data(let data):
      self.body = .data(data)
    case .chunks(let make):
      // A Content-Length field gives a sequence its length.
      self.body = .none
      let stated = try statedLength(bodyLength: body.length)
      self.body = .upload(.chunks(make(body.length ?? stated)))
    }
  }
}
