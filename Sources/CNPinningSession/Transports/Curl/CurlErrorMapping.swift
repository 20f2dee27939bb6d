#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningCurl
import Foundation

/// Turns a failed transfer into the session's error: a pure function of libcurl's completion
/// (its result, by kind, and what the TLS hooks saw) and the request's plan and policy. Certificate refusals are judged by ``ConnectionVerdict`` before
/// this is asked. The table, first match wins:
///
/// | facts | error |
/// | --- | --- |
/// | through a proxy: its name unresolved, its port refused, CONNECT answered ≥ 300 or not in HTTP, its own TLS failed | `proxyFailed`, `untrustedProxy` |
/// | a TLS context could not be set up | `tlsHandshakeFailed` |
/// | `couldNotResolveHost` | `cannotResolveHost` |
/// | `couldNotConnect` (refused, else any) | `connectionRefused`, `cannotConnect` |
/// | `timedOut` | `timedOut` (the resource timeout once the request was sent) |
/// | `tlsHandshake` (the server chose or offered only a version below the minimum; a certificate list over the bound; else any) | `transportSecurity`, `tlsHandshakeFailed` |
/// | `certificateRefused` | `untrustedChain` |
/// | `outOfMemory` while the head was read (libcurl's 100 KiB limit on one header line) | `invalidResponse` |
/// | `receiveError` on malformed chunked encoding | `invalidResponse` |
/// | `sendError`, `receiveError`, `gotNothing`, `partialFile` | `connectionLost` |
/// | `weirdServerReply`, `badContentEncoding`, `http2`, `http2Stream` | `invalidResponse` |
/// | `unsupportedProtocol` once the request was sent (an invalid status line) | `invalidResponse` |
/// | `unsupportedProtocol`, `malformedURL` | `invalidURL` |
/// | `writeError` | `transferFailed` (the body could not be written) |
/// | anything else | `transferFailed`, with libcurl's message and code |
enum CurlErrorMapping {
  /// `bodyBytes`: how much of the body had arrived (none: the head was being read).
  static func error(for facts: CurlCompletion, bodyBytes: Int, plan: RequestPlan, policy: RequestPolicy)
    -> CNPinnedSessionError
  {
    let host = plan.host
    let result = facts.result
    if let proxy = plan.proxy, let failure = proxyError(for: facts, proxy: proxy, plan: plan) {
      return failure
    }
    if let setup = facts.setupFailure { return .tlsHandshakeFailed(host: host, reason: setup) }
    let message = result.message
    switch result.kind {
    case .couldNotResolveHost:
      return .cannotResolveHost(host: host)
    case .couldNotConnect:
      return result.connectionRefused
        ? .connectionRefused(host: host, port: plan.port) : .cannotConnect(host: host, reason: message)
    case .timedOut:
      // Before the request is sent, libcurl's connect timeout (the request timeout) or the
      // resource timeout, whichever is shorter; afterwards only the resource timeout is libcurl's.
      let limit = facts.requestSent ? plan.resourceTimeout : .tighter(plan.timeout, plan.resourceTimeout)
      return .timedOut(host: host, seconds: limit?.seconds ?? .infinity)
    case .tlsHandshake:
      if let violation = ConnectionVerdict.versionViolation(facts.handshake, under: policy, offered: policy.minimumTLSVersion) {
        return .transportSecurity(violation)
      }
      if message.hasSuffix("excessive message size") {
        let bound = CurlRequest.TLS.maximumCertificateListSize >> 20
        return .tlsHandshakeFailed(
          host: host,
          reason: "the server sent a handshake message (its certificates) over the \(bound) MiB the session accepts: \(message)")
      }
      return .tlsHandshakeFailed(host: host, reason: message)
    case .certificateRefused:
      return .untrustedChain(host: host, reason: message)
    case .outOfMemory where facts.requestSent && bodyBytes == 0:
      // libcurl refuses a header line over CURL_MAX_HTTP_HEADER (100 KiB) as out of memory.
      return .invalidResponse(host: host, reason: "a response header line is longer than libcurl's limit of 100 KiB")
    case .tooLarge:
      return .invalidResponse(host: host, reason: "the response head is larger than libcurl accepts: \(message)")
    // 7.88 says "… in chunked-encoding", 8.x "chunk hex-length char not a hex digit" and the like.
    case .receiveError where message.hasSuffix(" in chunked-encoding") || message.hasPrefix("chunk "):
      return .invalidResponse(host: host, reason: message)
    case .sendError, .receiveError, .gotNothing, .partialFile:
      return .connectionLost(host: host, reason: message)
    case .weirdServerReply, .badContentEncoding, .http2, .http2Stream:
      return .invalidResponse(host: host, reason: message)
    case .unsupportedProtocol where facts.requestSent:
      // Once the request is out, libcurl's "unsupported protocol" is a status line it refused
      // (a four-digit or zero-led code, an unknown HTTP version).
      return .invalidResponse(host: host, reason: "the status line is not valid HTTP: \(message)")
    case .unsupportedProtocol, .malformedURL:
      return .invalidURL(plan.url.absoluteString)
    case .writeError:
      return .transferFailed(host: host, reason: "cannot write the response body: \(message)")
    default:
      return .transferFailed(host: host, reason: "\(message) (libcurl error \(result.code))")
    }
  }

  /// A failure of the proxy itself: reaching it, its TLS (before the origin's began), or its
  /// answer to CONNECT. Nil when the failure was the origin's.
  private static func proxyError(for facts: CurlCompletion, proxy: ProxyRoute, plan: RequestPlan)
    -> CNPinnedSessionError?
  {
    let result = facts.result
    let name = HostName.authority(proxy.host, port: proxy.port)
    switch result.kind {
    case .couldNotResolveProxy:
      return .proxyFailed(proxy: name, reason: "the proxy's host name does not resolve")
    case .couldNotConnect:
      return .proxyFailed(proxy: name, reason: result.connectionRefused ? "connection refused" : result.message)
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
      [.receiveError, .sendError, .gotNothing, .weirdServerReply].contains(result.kind)
    {
      return .proxyFailed(
        proxy: name, reason: "no valid answer to CONNECT \(HostName.authority(plan.host, port: plan.port)): \(result.message)")
    }
    guard proxy.isHTTPS, !facts.reachedOrigin else { return nil }
    if let setup = facts.setupFailure { return .proxyFailed(proxy: name, reason: setup) }
    switch result.kind {
    case .certificateRefused:
      return .untrustedProxy(proxy: name, reason: result.message)
    case .tlsHandshake:
      return .proxyFailed(proxy: name, reason: "TLS handshake failed: \(result.message)")
    default:
      return nil
    }
  }
}
#endif
