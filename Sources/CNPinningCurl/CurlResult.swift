#if CNPINNING_LINUX_BACKEND
internal import CCurl
import Foundation

/// libcurl's result for one job, read before its easy handle is reused: libcurl's code as the
/// kinds the session tells apart, and the details.
package struct CurlResult: Sendable {
  /// libcurl's codes, grouped as the session's error mapping needs them.
  package enum Kind: Sendable, Equatable {
    case ok
    case couldNotResolveHost
    case couldNotResolveProxy
    case couldNotConnect
    case timedOut
    /// `SSL_CONNECT_ERROR`: the handshake failed.
    case tlsHandshake
    /// `PEER_FAILED_VERIFICATION`, `SSL_CERTPROBLEM`, `SSL_CACERT_BADFILE`.
    case certificateRefused
    case outOfMemory
    case receiveError
    case sendError
    case gotNothing
    case partialFile
    case weirdServerReply
    case badContentEncoding
    /// `HTTP2`: libcurl's HTTP/2 framing error, also how it ends a stream a GOAWAY refused.
    case http2
    case http2Stream
    case unsupportedProtocol
    case malformedURL
    case writeError
    /// CURLE_TOO_LARGE (100, from libcurl 8.6.0): a response head over libcurl's limits (from
    /// 8.x, more than 5,000 header fields or 300 KiB of head).
    case tooLarge
    case other
  }

  package let kind: Kind
  /// libcurl's number for the code, for messages.
  package let code: Int
  /// libcurl's error buffer, or its description of the code when the buffer is empty.
  package let message: String
  /// Whether a failed connect was refused (`ECONNREFUSED`).
  package let connectionRefused: Bool
  /// The proxy's answer to CONNECT, 0 when there was none.
  package let connectCode: Int

  /// How libcurl framed the last response's body.
  package let framing: Framing

  package var isSuccess: Bool { kind == .ok }

  /// What libcurl made of the last response's head, which decides where its body ends.
  package struct Framing: Sendable, Equatable {
    /// The status code libcurl read from the status line (`CURLINFO_RESPONSE_CODE`), 0 without one.
    package let responseCode: Int
    /// The body length libcurl framed the body by (`CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`): -1 when
    /// it framed it otherwise (chunks, a Transfer-Encoding, the connection's end) or had no head.
    package let statedLength: Int64

    package init(responseCode: Int, statedLength: Int64) {
      self.responseCode = responseCode
      self.statedLength = statedLength
    }
  }

  init(code: CURLcode, message: String, osError: Int, connectCode: Int, framing: Framing) {
    self.kind = Self.kind(of: code)
    self.code = Int(code.rawValue)
    self.message = message
    self.connectionRefused = osError == Int(ECONNREFUSED)
    self.connectCode = connectCode
    self.framing = framing
  }

  /// The kind of libcurl's result code `raw` (a `CURLcode`'s value).
  package static func kind(ofCode raw: UInt32) -> Kind { kind(of: CURLcode(rawValue: raw)) }

  private static func kind(of code: CURLcode) -> Kind {
    switch code {
    case CURLE_OK: .ok
    case CURLE_COULDNT_RESOLVE_HOST: .couldNotResolveHost
    case CURLE_COULDNT_RESOLVE_PROXY: .couldNotResolveProxy
    case CURLE_COULDNT_CONNECT: .couldNotConnect
    case CURLE_OPERATION_TIMEDOUT: .timedOut
    case CURLE_SSL_CONNECT_ERROR: .tlsHandshake
    case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE: .certificateRefused
    case CURLE_OUT_OF_MEMORY: .outOfMemory
    case CURLE_RECV_ERROR: .receiveError
    case CURLE_SEND_ERROR: .sendError
    case CURLE_GOT_NOTHING: .gotNothing
    case CURLE_PARTIAL_FILE: .partialFile
    case CURLE_WEIRD_SERVER_REPLY: .weirdServerReply
    case CURLE_BAD_CONTENT_ENCODING: .badContentEncoding
    case CURLE_HTTP2: .http2
    case CURLE_HTTP2_STREAM: .http2Stream
    case CURLE_UNSUPPORTED_PROTOCOL: .unsupportedProtocol
    case CURLE_URL_MALFORMAT: .malformedURL
    case CURLE_WRITE_ERROR: .writeError
    case CURLcode(rawValue: 100): .tooLarge  // not in 7.88's headers
    default: .other
    }
  }
}
#endif
