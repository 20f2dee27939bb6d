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
  /// The proxy's answer to CONNECT (CURLINFO_HTTP_CONNECTCODE), 0 when there was none.
  let connectCode: Int

  var isSuccess: Bool { code == CURLE_OK }
}

/// Turns a failed transfer into the session's error, using what the TLS hooks saw of the
/// handshake. Certificate refusals are judged by `ConnectionVerdict` before this is asked.
enum CurlErrorMapping {
  static func error(for result: CurlResult, transfer: CurlTransfer) -> CNPinnedSessionError {
    let host = transfer.plan.host
    if let proxy = transfer.plan.proxy, let failure = proxyError(for: result, proxy: proxy, transfer: transfer) {
      return failure
    }
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
        handshake, under: transfer.policy, offered: transfer.policy.minimumTLSVersion)
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

  /// A failure of the proxy itself: reaching it, its TLS (before the origin's began), or its
  /// answer to CONNECT. Nil when the failure was the origin's.
  private static func proxyError(for result: CurlResult, proxy: ProxyRoute, transfer: CurlTransfer) -> CNPinnedSessionError? {
    let name = "\(proxy.host):\(proxy.port)"
    switch result.code {
    case CURLE_COULDNT_RESOLVE_PROXY:
      return .proxyFailed(proxy: name, reason: "the proxy's host name does not resolve")
    case CURLE_COULDNT_CONNECT:
      return .proxyFailed(proxy: name, reason: result.osError == Int(ECONNREFUSED) ? "connection refused" : result.message)
    default:
      break
    }
    if result.connectCode >= 300 {
      let hint = result.connectCode == 407 ? " (proxy authentication required)" : ""
      return .proxyFailed(
        proxy: name, reason: "CONNECT \(transfer.plan.host):\(transfer.plan.port) was answered \(result.connectCode)\(hint)")
    }
    guard proxy.isHTTPS, !transfer.reachedOrigin else { return nil }
    if let setup = transfer.setupFailure { return .proxyFailed(proxy: name, reason: setup.reason) }
    switch result.code {
    case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
      return .untrustedProxy(proxy: name, reason: result.message)
    case CURLE_SSL_CONNECT_ERROR:
      return .proxyFailed(proxy: name, reason: "TLS handshake failed: \(result.message)")
    default:
      return nil
    }
  }
}
#endif
