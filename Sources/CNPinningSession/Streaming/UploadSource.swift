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
