import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Bodies that stream through the session rather than being held whole: the response as it
// arrives, and uploads from a file or a stream as they are sent.
extension CNPinnedSession {
  /// Loads `request` and returns once the response has arrived, with its body to read as it
  /// comes: memory stays bounded however large the body, since the transfer waits while the
  /// reader does. Drop the bytes (or cancel the reading task) to stop the transfer. On Linux the
  /// body comes over HTTP/1.1 on a connection of its own, so that a reader that stops holds no
  /// more than the socket buffers; on Apple platforms a URLSession data task whose delegate hands
  /// each chunk on as it arrives, suspended while the reader has a full channel. Both stop at `maximumDownloadSize`.
  ///
  /// On Apple platforms streams are **experimental**: URLSession names a task's connection only
  /// when the task ends, so the response and body go out on the verdict for the host's judged
  /// connection, and the stream's own connection is judged at its end (a refusal then ends the
  /// body with `connectionNotJudged` and is reported). Where the verdict must come before any
  /// byte, use ``data(for:)``; for an app's own URLSession, the delegate API
  /// (`validate(challenge:)`) stays the recommended path.
  public func bytes(for request: URLRequest) async throws -> (AsyncBytes, HTTPURLResponse) {
    let (outcome, body) = try await engine.exchange(SessionRequest(request), into: ResponseBodyChannel.self)
    let response = outcome.response
    return (AsyncBytes(body), response)
  }

  /// Loads `url` with a GET request, its body to read as it comes.
  public func bytes(from url: URL) async throws -> (AsyncBytes, HTTPURLResponse) {
    try await bytes(for: URLRequest(url: url))
  }

  /// Sends `request` with the contents of `fileURL` as its body, read from disk as it is sent
  /// (never held whole in memory). A redirect that keeps the body sends the file again.
  public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, HTTPURLResponse) {
    var sent = SessionRequest(request)
    sent.body = .upload(.file(fileURL))
    let (outcome, _) = try await engine.exchange(sent, into: BodyInMemory.self)
    return (outcome.body, outcome.response)
  }

  /// Sends `request` with `bodyData` as its body.
  public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, HTTPURLResponse) {
    var request = request
    request.httpBody = bodyData
    return try await data(for: request)
  }
}
