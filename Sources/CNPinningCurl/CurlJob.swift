#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation

/// One request on its way through the session's multi handle: what libcurl is told, the
/// session's events, and the facts the hooks collect. It owns no C object: the loop lends it an
/// easy handle while it runs.
///
/// Created on the caller's thread; from `CurlMultiLoop.perform` on, touched only by the
/// session's driver, except `delivery` (its end and its cancellation), which is behind a lock.
// Its driver-only variables are @exclusivity(unchecked) (docs/decisions/session-linux.md, "No runtime exclusivity checks on the driver's variables").
// Unchecked Sendable: touched only by the driver, except `delivery`, which is behind a lock.
package final class CurlJob: @unchecked Sendable {
  package let request: CurlRequest
  /// The session's side, told everything that happens.
  let events: any CurlTransferEvents
  /// How the end reaches the requesting task, and a cancellation the driver.
  package let delivery: CurlDelivery
  /// Whether a body is streamed either way: the job is paused and resumed (`CurlMultiLoop.resume`).
  package let streamsABody: Bool
  /// When the job was handed to the loop (uptime nanoseconds).
  @exclusivity(unchecked) var queuedAt: UInt64 = 0

  /// Whether the next TLS context libcurl sets up is the HTTPS proxy's: on a new connection
  /// libcurl sets up the proxy's TLS first, then the origin's inside the tunnel. Set again
  /// once a request is judged, for a fresh connection should libcurl retry.
  @exclusivity(unchecked) private var proxyHandshakeIsNext: Bool
  /// Whether the request goes through an HTTPS proxy (read once: reading the request's proxy
  /// again at each judgement copied it).
  private let tunnelsThroughTLS: Bool
  /// Whether the origin's TLS context was set up (a failure before it was the proxy's).
  @exclusivity(unchecked) private var reachedOrigin = false
  /// Whether libcurl was about to send the request (the judgement point was reached).
  @exclusivity(unchecked) private var requestSent = false
  /// The idle clock: when bytes last moved (uptime nanoseconds), how many had (body bytes both
  /// ways and header lines), and whether the job waits on the caller (a paused stream).
  @exclusivity(unchecked) private var lastMovement: UInt64 = 0
  @exclusivity(unchecked) private var moved: Int64 = -1
  @exclusivity(unchecked) private var headerLines: Int64 = 0
  @exclusivity(unchecked) private var waitsOnCaller = false
  /// The request timeout in nanoseconds (0: none), worked out once: libcurl reports progress
  /// several times a request.
  private let idleTimeout: UInt64
  /// The connection this request set up, when it made one (its handshake facts explain a failure).
  @exclusivity(unchecked) private var createdConnection: TLSConnectionState?
  /// The connection the request was sent on (new or reused), once judged.
  @exclusivity(unchecked) private var servingConnection: TLSConnectionState?
  /// Why this request's TLS context could not be set up.
  @exclusivity(unchecked) private var setupFailure: String?

  package init(request: CurlRequest, events: any CurlTransferEvents, delivery: CurlDelivery, streamsABody: Bool) {
    self.request = request
    self.events = events
    self.delivery = delivery
    self.streamsABody = streamsABody
    tunnelsThroughTLS = request.proxy?.trustStore != nil
    proxyHandshakeIsNext = tunnelsThroughTLS
    idleTimeout = request.timeout?.nanoseconds ?? 0
  }

  /// Nanoseconds from handing the job to the loop to its delivery (the time it spent queued and
  /// in libcurl, without the requesting task's own scheduling); 0 before.
  package var networkTime: UInt64 {
    let delivered = delivery.deliveredAt
    return delivered > queuedAt ? delivered - queuedAt : 0
  }

  // MARK: - Called from libcurl's callbacks (the driver)

  /// Sets up the TLS context of a connection this request is opening.
  func configureTLS(_ context: OpaquePointer) -> Bool {
    if proxyHandshakeIsNext, let proxy = request.proxy, let store = proxy.trustStore {
      proxyHandshakeIsNext = false
      if let failure = TLSHooks.configureProxy(context, host: proxy.host, trustStore: store) {
        setupFailure = failure.reason
        return false
      }
      return true
    }
    reachedOrigin = true
    switch TLSHooks.configure(context, for: request.tls, at: request.clock()) {
    case .success(let state):
      createdConnection = state
      return true
    case .failure(let failure):
      setupFailure = failure.reason
      return false
    }
  }

  /// Asks the session whether the request may go on the connection, just before it is sent.
  /// `ssl` is nil for plain http.
  func judge(ssl: OpaquePointer?, connectionHasInput: () -> Bool) -> Bool {
    let resend = requestSent
    requestSent = true
    lastMovement = Uptime.nanoseconds
    proxyHandshakeIsNext = tunnelsThroughTLS
    let judgement: CurlJudgement
    if request.isHTTPS {
      if let ssl { servingConnection = TLSHooks.connectionState(of: ssl) }
      let facts =
        ssl.flatMap(TLSHooks.facts(of:))
        ?? CurlConnectionFacts(use: .new, protocolVersion: 0, cipher: nil, applicationProtocol: nil, verified: nil)
      judgement = events.judge(facts, resend: resend, connectionHasInput: connectionHasInput)
    } else {
      judgement = events.judgePlain(resend: resend)
    }
    switch judgement {
    case .proceed(let kept):
      servingConnection?.keptVerdict = kept
      return true
    case .stop:
      return false
    case .refuseConnection:
      servingConnection?.keptVerdict = nil
      if let ssl { TLSHooks.forgetSession(of: ssl) }
      return false
    }
  }

  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> CurlBodyReceipt {
    let receipt = events.receiveBody(bytes)
    waitsOnCaller = receipt == .paused
    return receipt
  }

  func sendBody(_ buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead {
    let read = events.sendBody(buffer)
    waitsOnCaller = read == .paused
    return read
  }

  func rewindBody() -> Bool { events.rewindBody() }

  func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
    headerLines += 1
    return events.receiveHeaderLine(bytes)
  }

  /// The request timeout as URLSession means it: once the request is sent, the longest wait for
  /// the next byte either way. False (the job stops, timed out) when it has passed; a job
  /// paused for the caller is not idle.
  func watchIdleTime(moved bodyBytes: Int64) -> Bool {
    guard requestSent, idleTimeout > 0 else { return true }
    let now = Uptime.nanoseconds
    let moved = bodyBytes + headerLines
    if moved != self.moved || waitsOnCaller {
      self.moved = moved
      lastMovement = now
      return true
    }
    guard now - lastMovement >= idleTimeout else { return true }
    events.idleTimeoutPassed()
    return false
  }

  // MARK: - The end (the driver)

  /// What libcurl and the hooks say of the finished job.
  func completion(_ result: CurlResult) -> CurlCompletion {
    CurlCompletion(
      result: result, setupFailure: setupFailure, handshake: createdConnection?.failure ?? HandshakeFailureFacts(),
      reachedOrigin: reachedOrigin, requestSent: requestSent,
      served: servingConnection != nil,
      servingReceivedCloseNotify: servingConnection?.receivedCloseNotify ?? false,
      servingProtocol: servingConnection?.applicationProtocol)
  }

  /// Ends the job: the session makes and delivers its report. Returns the waiting task's
  /// resumption, for the caller to resume. Touched by no one afterwards.
  func end(_ end: CurlEnd) -> CurlDelivery.Resumption? { events.end(end) }
}
#endif
