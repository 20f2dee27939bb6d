#if CNPINNING_LINUX_BACKEND
internal import CCurl
import CNPinning
import CNPinningSessionCore
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
  /// libcurl's HTTP/2 framing error (CURLE_HTTP2), which is also how it ends a stream a GOAWAY refused.
  var isHTTP2FramingError: Bool { code == CURLE_HTTP2 }
}

/// What is known of a failed transfer, as a value (the failure path's counterpart of
/// `ConnectionFacts`): libcurl's result and what the TLS hooks saw, collected on the network
/// thread when the transfer ends.
struct TransferFailureFacts: Sendable {
  let result: CurlResult
  /// Why a TLS context could not be set up, when one could not.
  let setupFailure: TLSSetupFailure?
  /// What the hooks saw of the handshake of the connection the transfer made, if any.
  let handshake: HandshakeFailureFacts
  /// Whether the origin's TLS context was set up (a failure before it was an HTTPS proxy's).
  let reachedOrigin: Bool
  /// Whether the request had been sent (so that a timeout was the resource timeout: the
  /// request timeout then is judged by the transfer's idle clock).
  let requestSent: Bool
  /// Whether the request had been sent and no body byte had arrived: the response head was
  /// being read.
  let wasReadingHead: Bool
}

/// Turns a failed transfer into the session's error: a pure function of the failure's facts and
/// the request's plan and policy. Certificate refusals are judged by `ConnectionVerdict` before
/// this is asked. The table, first match wins:
///
/// | facts | error |
/// | --- | --- |
/// | through a proxy: its name unresolved, its port refused, CONNECT answered ≥ 300 or not in HTTP, its own TLS failed | `proxyFailed`, `untrustedProxy` |
/// | a TLS context could not be set up | `tlsHandshakeFailed` |
/// | `COULDNT_RESOLVE_HOST` | `cannotResolveHost` |
/// | `COULDNT_CONNECT` (`ECONNREFUSED`, else any) | `connectionRefused`, `cannotConnect` |
/// | `OPERATION_TIMEDOUT` | `timedOut` (the resource timeout once the request was sent) |
/// | `SSL_CONNECT_ERROR` (the server chose or offered only a version below the minimum, else any) | `transportSecurity`, `tlsHandshakeFailed` |
/// | `PEER_FAILED_VERIFICATION`, `SSL_CERTPROBLEM`, `SSL_CACERT_BADFILE` | `untrustedChain` |
/// | `OUT_OF_MEMORY` while the head was read (libcurl's 100 KiB limit on one header line) | `invalidResponse` |
/// | `RECV_ERROR` on malformed chunked encoding | `invalidResponse` |
/// | `SEND_ERROR`, `RECV_ERROR`, `GOT_NOTHING`, `PARTIAL_FILE` | `connectionLost` |
/// | `WEIRD_SERVER_REPLY`, `BAD_CONTENT_ENCODING`, `HTTP2`, `HTTP2_STREAM` | `invalidResponse` |
/// | `UNSUPPORTED_PROTOCOL`, `URL_MALFORMAT` | `invalidURL` |
/// | `WRITE_ERROR` | `transferFailed` (the body could not be written) |
/// | anything else | `transferFailed`, with libcurl's message and code |
enum CurlErrorMapping {
  static func error(for facts: TransferFailureFacts, plan: RequestPlan, policy: RequestPolicy) -> CNPinnedSessionError {
    let host = plan.host
    let result = facts.result
    if let proxy = plan.proxy, let failure = proxyError(for: facts, proxy: proxy, plan: plan) {
      return failure
    }
    if let setup = facts.setupFailure { return .tlsHandshakeFailed(host: host, reason: setup.reason) }
    let message = result.message
    switch result.code {
    case CURLE_COULDNT_RESOLVE_HOST:
      return .cannotResolveHost(host: host)
    case CURLE_COULDNT_CONNECT:
      return result.osError == Int(ECONNREFUSED)
        ? .connectionRefused(host: host, port: plan.port) : .cannotConnect(host: host, reason: message)
    case CURLE_OPERATION_TIMEDOUT:
      // Before the request is sent, libcurl's connect timeout (the request timeout) or the
      // resource timeout, whichever is shorter; afterwards only the resource timeout is libcurl's.
      return .timedOut(host: host, seconds: facts.requestSent ? plan.resourceTimeout : min(plan.timeout, plan.resourceTimeout))
    case CURLE_SSL_CONNECT_ERROR:
      if let violation = ConnectionVerdict.versionViolation(facts.handshake, under: policy, offered: policy.minimumTLSVersion) {
        return .transportSecurity(violation)
      }
      return .tlsHandshakeFailed(host: host, reason: message)
    case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
      return .untrustedChain(host: host, reason: message)
    case CURLE_OUT_OF_MEMORY where facts.wasReadingHead:
      // libcurl refuses a header line over CURL_MAX_HTTP_HEADER (100 KiB) as out of memory.
      return .invalidResponse(host: host, reason: "a response header line is longer than libcurl's limit of 100 KiB")
    case CURLE_RECV_ERROR where message.hasSuffix(" in chunked-encoding"):
      return .invalidResponse(host: host, reason: message)
    case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
      return .connectionLost(host: host, reason: message)
    case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
      return .invalidResponse(host: host, reason: message)
    case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
      return .invalidURL(plan.url.absoluteString)
    case CURLE_WRITE_ERROR:
      return .transferFailed(host: host, reason: "cannot write the response body: \(message)")
    default:
      return .transferFailed(host: host, reason: "\(message) (libcurl error \(result.code.rawValue))")
    }
  }

  /// A failure of the proxy itself: reaching it, its TLS (before the origin's began), or its
  /// answer to CONNECT. Nil when the failure was the origin's.
  private static func proxyError(for facts: TransferFailureFacts, proxy: ProxyRoute, plan: RequestPlan)
    -> CNPinnedSessionError?
  {
    let result = facts.result
    let name = HostName.authority(proxy.host, port: proxy.port)
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
        proxy: name, reason: "CONNECT \(HostName.authority(plan.host, port: plan.port)) was answered \(result.connectCode)\(hint)"
      )
    }
    // Through an HTTP proxy, a broken exchange before the origin's TLS began is the proxy's: its
    // answer to CONNECT was not HTTP, or it closed the connection instead of answering.
    if !proxy.isHTTPS, plan.isHTTPS, !facts.reachedOrigin,
      [CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_WEIRD_SERVER_REPLY].contains(result.code)
    {
      return .proxyFailed(
        proxy: name, reason: "no valid answer to CONNECT \(HostName.authority(plan.host, port: plan.port)): \(result.message)")
    }
    guard proxy.isHTTPS, !facts.reachedOrigin else { return nil }
    if let setup = facts.setupFailure { return .proxyFailed(proxy: name, reason: setup.reason) }
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
