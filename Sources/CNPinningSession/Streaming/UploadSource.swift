import Foundation

/// A request body the session sends as it reads it, never holding it whole: a file
/// (`upload(for:fromFile:)`), the request's `httpBodyStream`, or a `CNHTTPRequest`'s chunks
/// (their length, when known, is the upload's).
package enum UploadSource: Sendable {
  case file(URL)
  case stream(BodyStream)
  case chunks(ChunkedUpload)

  /// A request's `httpBodyStream`, handed over to the session: from then on only the session
  /// reads it (on one thread at a time), which is what makes passing it between threads safe.
  // Unchecked Sendable: the stream is read by one thread at a time once handed over (see above); InputStream is not Sendable.
  package struct BodyStream: @unchecked Sendable {
    package let stream: InputStream

    package init(stream: InputStream) {
      self.stream = stream
    }
  }

  /// Whether the body can be sent again (to a redirect that keeps the method and body).
  package var canBeResent: Bool {
    if case .file = self { return true }
    return false
  }

  /// The answer to URLSession's `needNewBodyStream` (to answer a 401 or 407, or to retry on a new
  /// connection): a file's body opened again; nil for a body that is read once (the caller's
  /// stream, a sequence), whose task then fails with ``askedAgain``.
  package func reopened() -> InputStream? {
    guard case .file(let file) = self else { return nil }
    return InputStream(url: file)
  }

  /// Why a task whose body URLSession asked for again, and could not have, failed: URLSession's
  /// own error would name neither.
  package static let askedAgain = CNPinnedSessionError.streamedBodyAskedForAgain(
    by: "URLSession (answering a challenge or retrying on a new connection)")
}

extension CNPinnedSessionError {
  /// The refusal of a resend of a caller's `httpBodyStream`, which can be read only once;
  /// `asker` says who asked for it again (a redirect, URLSession answering a challenge).
  package static func streamedBodyAskedForAgain(by asker: String) -> CNPinnedSessionError {
    .unsupportedRequest(
      "\(asker) asked for the request's httpBodyStream again, and a stream can be read only once: upload a file or set httpBody to send it again"
    )
  }
}
