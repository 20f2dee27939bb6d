#if os(Linux) && !CNPINNING_APPLE_CHECK
  internal import CCurl
  import CNPinning
  import Foundation

  /// libcurl's result for one transfer, read before its easy handle is reused.
  struct CurlResult: Sendable {
    let code: CURLcode
    /// libcurl's error buffer, or its description of `code` when the buffer is empty.
    let message: String
    /// The system error of a failed connect (CURLINFO_OS_ERRNO).
    let osError: Int

    var isSuccess: Bool { code == CURLE_OK }
  }

  /// Turns a failed transfer into the session's error, using what the TLS hooks saw of the
  /// handshake. Certificate refusals are judged by `ConnectionVerdict` before this is asked.
  enum CurlErrorMapping {
    static func error(for result: CurlResult, transfer: CurlTransfer) -> CNPinnedSessionError {
      let host = transfer.plan.host
      if let setup = transfer.setupFailure { return .tlsHandshakeFailed(host: host, reason: setup.reason) }
      let handshake = transfer.createdConnection?.failure ?? HandshakeFailureFacts()
      let message = result.message
      switch result.code {
      case CURLE_COULDNT_RESOLVE_HOST:
        return .cannotResolveHost(host: host)
      case CURLE_COULDNT_CONNECT:
        return result.osError == Int(ECONNREFUSED)
          ? .connectionRefused(host: host, port: transfer.plan.port) : .cannotConnect(host: host, reason: message)
      case CURLE_OPERATION_TIMEDOUT:
        return .timedOut(host: host, seconds: transfer.plan.timeout)
      case CURLE_SSL_CONNECT_ERROR:
        if let violation = ConnectionVerdict.versionViolation(
          handshake, under: transfer.policy, offered: transfer.minimumTLSVersion)
        {
          return .transportSecurity(violation)
        }
        return .tlsHandshakeFailed(host: host, reason: message)
      case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
        return .untrustedChain(host: host, reason: message)
      case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
        return .connectionLost(host: host, reason: message)
      case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
        return .invalidResponse(host: host, reason: message)
      case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
        return .invalidURL(transfer.plan.url.absoluteString)
      case CURLE_WRITE_ERROR:
        return .transferFailed(host: host, reason: "cannot write the response body: \(message)")
      default:
        return .transferFailed(host: host, reason: "\(message) (libcurl error \(result.code.rawValue))")
      }
    }
  }
#endif
