import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the Apple transport decides about a hop before and after URLSession runs it: the
/// request it sends, how a failed task's error becomes the session's, and what a verdict on the
/// task's connection means for the hop. Platform-neutral, tested on Linux, so that the Apple-only
/// transport only forwards (issue 53, item 3).
enum URLSessionHop {
  /// The URLRequest for `hop`: the hop's origin fields (``HopFields``: URLSession answers proxies
  /// itself, so the proxy's fields are not sent), and a streamed body for URLSession to read,
  /// with its length when known. `chunkStream` makes the stream a chunk sequence is written into
  /// (on Apple platforms, a bound pair's input). URLSession keeps one value per field name
  /// (repeats joined by ",") and no order of its own.
  static func request(
    for hop: Hop, chunkStream: (ChunkedUpload, String) -> InputStream?
  ) throws(CNPinnedSessionError) -> URLRequest {
    guard !hop.connectOnly else { throw .unsupportedRequest("probe (a handshake without a request) needs the Linux transport") }
    var sent = hop.request
    sent.fields = hop.fields.origin
    var request = sent.urlRequest
    switch hop.upload {
    case .file(let file):
      guard let stream = InputStream(url: file),
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int
      else {
        throw .invalidArgument("cannot read the upload file \(file.path)")
      }
      request.httpBodyStream = stream
      request.setValue(String(size), forHTTPHeaderField: "Content-Length")
    case .stream(let body):
      request.httpBodyStream = body.stream
    case .chunks(let upload):
      guard let stream = chunkStream(upload, hop.target.host) else {
        throw .setupFailed(reason: "Foundation made no bound stream pair for the request body")
      }
      request.httpBodyStream = stream
      if let length = upload.length { request.setValue(String(length), forHTTPHeaderField: "Content-Length") }
    case nil:
      break
    }
    return request
  }

  /// A failed task's error in the session's terms, first cause first: a failed request body's
  /// (its task was cancelled for it), the session's own, the delegate's rejection of a
  /// challenge, the transport closed, then URLSession's error (``failure(_:host:timeout:trust:)``).
  static func failure(
    _ error: Error, upload: UploadSource?, rejection: CNPinnedSessionError?, sessionClosed: Bool, host: String,
    timeout: TimeInterval, trust: CNTrust
  ) -> CNPinnedSessionError {
    if case .chunks(let chunks)? = upload, let failure = chunks.failure { return failure }
    if let error = error as? CNPinnedSessionError { return error }
    if let rejection { return rejection }
    if sessionClosed { return .sessionInvalidated }
    return failure(error, host: host, timeout: timeout, trust: trust)
  }

  /// URLSession's error in the session's terms; a TLS or trust failure carries the App Transport
  /// Security hint for custom anchors.
  static func failure(_ error: Error, host: String, timeout: TimeInterval, trust: CNTrust) -> CNPinnedSessionError {
    guard let error = error as? URLError else { return .transferFailed(host: host, reason: "\(error)") }
    let hinted = [error.localizedDescription, trust.appTransportSecurityHint(host: host)].compactMap { $0 }
      .joined(separator: "; ")
    switch error.code {
    case .cancelled: return .cancelled
    case .timedOut: return .timedOut(host: host, seconds: timeout)
    case .cannotFindHost, .dnsLookupFailed: return .cannotResolveHost(host: host)
    case .cannotConnectToHost: return .cannotConnect(host: host, reason: error.localizedDescription)
    case .networkConnectionLost: return .connectionLost(host: host, reason: error.localizedDescription)
    case .secureConnectionFailed: return .tlsHandshakeFailed(host: host, reason: hinted)
    case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid:
      return .untrustedChain(host: host, reason: hinted)
    case .appTransportSecurityRequiresSecureConnection: return .transportSecurity(.insecureHTTP(host: host))
    default: return .transferFailed(host: host, reason: error.localizedDescription)
    }
  }

  /// What leasing a URLSession failed with, in the session's terms. A streamed body's writer is
  /// let go: when no task was made (the rotation closed, or the caller was cancelled, first), no
  /// delegate ends it, and it polled for ever (review N6).
  static func leaseFailure(_ error: Error, sessionClosed: Bool, host: String, upload: UploadSource?)
    -> CNPinnedSessionError
  {
    if case .chunks(let chunks)? = upload { chunks.taskEnded() }
    switch error {
    case let error as CNPinnedSessionError: return error
    case is CancellationError: return sessionClosed ? .sessionInvalidated : .cancelled
    case is SessionRotationClosed: return .sessionInvalidated
    default: return .transferFailed(host: host, reason: "\(error)")
    }
  }
}

extension ConnectionVerdicts.Completion {
  /// Applies the verdict on a task's connection: `retire` the URLSession when the connection was
  /// nobody's to judge, and throw the refusal, if any.
  func settle(retire: () -> Void) throws(CNPinnedSessionError) {
    if self.retire { retire() }
    if let refusal { throw refusal }
  }
}
