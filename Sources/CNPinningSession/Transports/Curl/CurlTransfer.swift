#if CNPINNING_LINUX_BACKEND
internal import CNPinningShims
import CNPinning
import CNPinningSessionCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on its way through the session's libcurl multi handle: what to send, the rules to
/// judge its connection by, and what came back. It owns no C object: the loop lends it an easy
/// handle while it runs.
///
/// Created on the caller's thread; from `CurlMultiLoop.perform` on, touched only by the
/// session's driver (its network thread, or the requesting thread while it drives an idle
/// session), except `report`, which hands the outcome over, and `cancellation`.
// Unchecked Sendable: touched only by the driver, except `report` and `cancellation`, which are behind locks of their own.
final class CurlTransfer: @unchecked Sendable {
  let plan: RequestPlan
  let policy: RequestPolicy
  let trustStore: TrustStore
  /// What an HTTPS proxy's certificate is verified against; nil without one.
  let proxyTrustStore: TrustStore?
  /// Whether the next TLS context libcurl sets up is the HTTPS proxy's: on a new connection
  /// libcurl sets up the proxy's TLS first, then the origin's inside the tunnel. Set again
  /// once a request is judged, for a fresh connection should libcurl retry.
  private var proxyHandshakeIsNext: Bool
  /// Whether the origin's TLS context was set up (a failure before it was the proxy's).
  private var reachedOrigin = false
  /// Whether libcurl was about to send the request (the judgement point was reached).
  private var requestSent = false
  /// The idle clock: when bytes last moved (uptime nanoseconds), how many had (body bytes both
  /// ways and header lines), and whether the transfer waits on the caller (a paused stream).
  private var lastMovement: UInt64 = 0
  private var moved: Int64 = -1
  private var headerLines: Int64 = 0
  private var waitsOnCaller = false
  /// Whether libcurl ended the transfer with its HTTP/2 framing error (CURLE_HTTP2).
  private var failedWithHTTP2Framing = false
  /// Whether the transfer was stopped before sending because its reused connection had been
  /// closed by the server.
  private var foundStaleConnection = false
  /// The connection this request set up, when it made one (its handshake facts explain a failure).
  private var createdConnection: TLSConnectionState?
  /// The connection the request was sent on (new or reused), once judged.
  private var servingConnection: TLSConnectionState?
  /// Why this request's TLS context could not be set up.
  private var setupFailure: TLSSetupFailure?
  /// Every verdict on this request's connections, in order (libcurl may retry once on a fresh
  /// connection when a reused one turns out dead).
  private(set) var judgements: [Judgement] = []
  private(set) var head = ResponseHead()
  private(set) var body = Data()
  /// Decoded body bytes received so far.
  private var bodyBytes = 0
  /// Where the caller follows the body's progress; started at the first body bytes.
  private let progress: CNTransferProgress?
  private var progressStarted = false
  /// Why the transfer stopped reading the response, when it did.
  private var refusedResponse: CNPinnedSessionError?
  /// Why the request body could not be sent, when it could not.
  private var uploadFailure: CNPinnedSessionError?
  /// The streamed request body, held to its length as it is sent.
  private var sentBody: StatedLengthBody?
  private let destination: BodyDestination
  /// The report, for the requesting task: delivered once, when the transfer ends or, for a
  /// streamed body, when the body starts.
  let report = ReportDelivery()
  /// Set by `CurlMultiLoop.cancel`, read by the loop.
  let cancellation = Locked(false)
  /// When the request was handed to the loop (uptime nanoseconds), set by `CurlMultiLoop.perform`.
  var queuedAt: UInt64 = 0

  init(
    plan: RequestPlan, policy: RequestPolicy, trustStore: TrustStore, proxyTrustStore: TrustStore?,
    destination: BodyDestination, progress: CNTransferProgress? = nil
  ) {
    self.progress = progress
    self.plan = plan
    self.policy = policy
    self.trustStore = trustStore
    self.proxyTrustStore = proxyTrustStore
    proxyHandshakeIsNext = proxyTrustStore != nil
    self.destination = destination
    sentBody = plan.streamedBody.map(StatedLengthBody.init)
  }

  /// Whether a body is streamed either way, so that the transfer needs `connect`.
  var streamsABody: Bool { plan.streamedBody != nil || destination.isStreamed }

  /// Connects the streamed bodies to the loop: `wake` resumes a paused transfer, `cancel` stops it.
  func connect(wake: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
    plan.streamedBody?.connect(wake: wake)
    if case .channel(let channel) = destination { channel.connect(wake: wake, cancel: cancel) }
  }

  // MARK: - Called from libcurl's callbacks (the driver)

  /// Sets up the TLS context of a connection this request is opening.
  func configureTLS(_ context: OpaquePointer) -> Bool {
    if proxyHandshakeIsNext, let proxyTrustStore, let proxy = plan.proxy {
      proxyHandshakeIsNext = false
      if let failure = TLSHooks.configureProxy(context, host: proxy.host, trustStore: proxyTrustStore) {
        setupFailure = failure
        return false
      }
      return true
    }
    reachedOrigin = true
    switch TLSHooks.configure(context, for: policy, trustStore: trustStore, at: plan.clock()) {
    case .success(let state):
      createdConnection = state
      return true
    case .failure(let failure):
      setupFailure = failure
      return false
    }
  }

  /// Judges the connection just before the request is sent on it: the one judgement point for
  /// new, reused and resumed connections and HTTP/2 streams. `ssl` is nil for plain http.
  /// `connectionHasInput` says whether the connection has bytes waiting before the request is sent.
  func judge(ssl: OpaquePointer?, at now: Date, connectionHasInput: () -> Bool) -> Bool {
    // A second judgement of one transfer is libcurl sending the request again on a fresh
    // connection, after a reused one closed before any answer (redirects are new transfers).
    // The first request may have reached the server, so only an idempotent one goes again.
    if requestSent, !plan.method.isIdempotent {
      refusedResponse = .connectionLost(
        host: plan.host,
        reason: "the reused connection closed before an answer; the \(plan.method.name) is not sent again, "
          + "as the server may have acted on it")
      return false
    }
    requestSent = true
    lastMovement = DispatchTime.now().uptimeNanoseconds
    proxyHandshakeIsNext = proxyTrustStore != nil
    guard plan.isHTTPS else { return true }
    if let ssl { servingConnection = TLSHooks.connectionState(of: ssl) }
    let facts =
      ssl.flatMap(TLSHooks.facts(of:))
      ?? ConnectionFacts(use: .new, protocolVersion: 0, cipher: nil, verified: nil)
    // libcurl takes an idle HTTP/1 connection for alive when its socket holds bytes (it peeks
    // for a FIN only), and a server that closed it properly has sent close_notify first. Sending
    // on it loses the request, which libcurl then sends again on a fresh connection; for a POST
    // that is refused above, so such a request is stopped here, before any of it is sent, and
    // the transport sends it on a fresh connection.
    if facts.use == .reused, !plan.method.isIdempotent, facts.applicationProtocol != "h2", connectionHasInput() {
      foundStaleConnection = true
      refusedResponse = .connectionLost(host: plan.host, reason: "the server closed the idle connection; nothing was sent")
      return false
    }
    let judgement = ConnectionVerdict.judge(facts, under: policy, at: now)
    judgements.append(judgement)
    guard judgement.rejection == nil else {
      if let ssl { TLSHooks.forgetSession(of: ssl) }
      return false
    }
    return true
  }

  /// Takes body bytes (decoded by libcurl).
  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyReceipt {
    guard bodyBytes + bytes.count <= plan.bodyLimit else {
      refusedResponse = .responseTooLarge(host: plan.host, limit: plan.bodyLimit)
      return .refused
    }
    switch destination {
    case .memory:
      body.append(contentsOf: bytes)
    case .file(let file):
      do {
        try file.write(contentsOf: bytes)
      } catch {
        refusedResponse = .transferFailed(host: plan.host, reason: "cannot write the download: \(error.localizedDescription)")
        return .refused
      }
    case .channel(let channel):
      // The caller gets the response as the body starts, then the body as it comes.
      if bodyBytes == 0 { deliver(.success(CurlResponse(head: head, body: Data())))?.resume() }
      if channel.offer(bytes) == .paused {
        waitsOnCaller = true
        return .paused
      }
    }
    waitsOnCaller = false
    bodyBytes += bytes.count
    if let progress {
      if !progressStarted {
        progressStarted = true
        progress.start(expected: head.expectedBodyLength)
      }
      progress.add(bytes.count)
    }
    return .taken
  }

  /// Fills `buffer` with the next bytes of a streamed request body.
  func sendBody(_ buffer: UnsafeMutableRawBufferPointer) -> BodyRead {
    guard sentBody != nil else { return .end }
    let read = sentBody!.read(into: buffer)
    if case .failed(let failure) = read { uploadFailure = failure }
    if case .paused = read { waitsOnCaller = true } else { waitsOnCaller = false }
    return read
  }

  /// Starts a streamed request body over; false when it cannot be.
  func rewindBody() -> Bool { sentBody?.rewind() ?? false }

  /// The request timeout as URLSession means it: once the request is sent, the longest wait for
  /// the next byte either way. False (the transfer stops, timed out) when it has passed; a
  /// transfer paused for the caller is not idle.
  func watchIdleTime(moved bodyBytes: Int64) -> Bool {
    guard requestSent, plan.timeout.isFinite, plan.timeout > 0 else { return true }
    let now = DispatchTime.now().uptimeNanoseconds
    let moved = bodyBytes + headerLines
    if moved != self.moved || waitsOnCaller {
      self.moved = moved
      lastMovement = now
      return true
    }
    guard Double(now - lastMovement) / 1e9 >= plan.timeout else { return true }
    refusedResponse = .timedOut(host: plan.host, seconds: plan.timeout)
    return false
  }

  /// Takes a header line; false stops the transfer.
  func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
    headerLines += 1
    guard head.consume(line: bytes) else {
      refusedResponse = .invalidResponse(
        host: plan.host, reason: "the response headers exceed \(ResponseHead.maximumSize / 1024) KiB")
      return false
    }
    return true
  }

  // MARK: - Outcome (the driver)

  /// What the request produced, given libcurl's result and what the hooks recorded.
  func outcome(_ result: CurlResult) -> Result<CurlResponse, CNPinnedSessionError> {
    failedWithHTTP2Framing = result.isHTTP2FramingError
    if let rejection = judgements.last?.rejection { return .failure(rejection) }
    if let refusedResponse { return .failure(refusedResponse) }
    if let uploadFailure { return .failure(uploadFailure) }
    guard result.isSuccess else {
      if let refused = refusedChainJudgement?.rejection { return .failure(refused) }
      return .failure(CurlErrorMapping.error(for: failureFacts(result), plan: plan, policy: policy))
    }
    if plan.isHTTPS, judgements.isEmpty {
      return .failure(.untrustedChain(host: plan.host, reason: "the connection was not verified"))
    }
    if let truncation = truncatedBody() { return .failure(truncation) }
    return .success(CurlResponse(head: head, body: body))
  }

  /// A body delimited by the connection's end that ended without the server's TLS close_notify:
  /// the end may be an attacker's or a network's cut, so the body is refused rather than taken
  /// for complete (libcurl, as browsers do, accepts it).
  private func truncatedBody() -> CNPinnedSessionError? {
    guard plan.isHTTPS, let connection = servingConnection, !connection.receivedCloseNotify,
      connection.applicationProtocol != "h2", head.bodyIsDelimitedByClose(isHEAD: plan.method.isHEAD)
    else { return nil }
    return .connectionLost(
      host: plan.host, reason: "the connection ended without TLS close_notify, so the body may be truncated")
  }

  /// What is known of the failure, as a value.
  private func failureFacts(_ result: CurlResult) -> TransferFailureFacts {
    TransferFailureFacts(
      result: result, setupFailure: setupFailure, handshake: createdConnection?.failure ?? HandshakeFailureFacts(),
      reachedOrigin: reachedOrigin, requestSent: requestSent, wasReadingHead: requestSent && bodyBytes == 0)
  }

  /// Ends the request: a streamed request body is released, a streamed response body ends
  /// (with the error, if any), and the outcome is delivered unless the task already has the
  /// response. Returns the waiting task's resumption, for the caller to resume. Touched by no
  /// one afterwards.
  func finish(_ result: Result<CurlResponse, CNPinnedSessionError>) -> ReportDelivery.Resumption? {
    plan.streamedBody?.close()
    if case .channel(let channel) = destination {
      if case .failure(let error) = result { channel.finish(error) } else { channel.finish(nil) }
    }
    return deliver(result)
  }

  /// Hands the outcome and every judgement to the requesting task, as values: from here on the
  /// task reads nothing of this object. Later calls do nothing.
  private func deliver(_ result: Result<CurlResponse, CNPinnedSessionError>) -> ReportDelivery.Resumption? {
    report.deliver {
      TransferReport(
        result: result, judgements: allJudgements, networkTime: DispatchTime.now().uptimeNanoseconds - queuedAt,
        mayBeSentAgain: mayBeSentAgain(result))
    }
  }

  /// Whether the request can go again on a fresh connection: it was stopped before anything was
  /// sent because its reused connection had been closed, or it failed on a reused HTTP/2
  /// connection with libcurl's HTTP/2 framing error before any byte of an answer, which is how
  /// libcurl 7.88 ends a stream the server refused with GOAWAY (it would retry one refused with
  /// REFUSED_STREAM itself), and it is idempotent, held in memory both ways, so that nothing of
  /// it reached the caller.
  private func mayBeSentAgain(_ result: Result<CurlResponse, CNPinnedSessionError>) -> Bool {
    guard case .failure = result else { return false }
    if foundStaleConnection { return plan.streamedBody == nil && destination.holdsBody }
    guard failedWithHTTP2Framing, headerLines == 0, bodyBytes == 0,
      servingConnection?.applicationProtocol == "h2", judgements.count == 1, judgements[0].use == .reused,
      judgements[0].rejection == nil, plan.method.isIdempotent, plan.streamedBody == nil, destination.holdsBody
    else { return false }
    return true
  }

  /// The judgement on a handshake that failed because OpenSSL refused the chain.
  var refusedChainJudgement: Judgement? {
    createdConnection.flatMap { ConnectionVerdict.judgeRefusedChain($0.failure, under: policy) }
  }

  /// Every judgement made for this request, for observers and reports.
  private var allJudgements: [Judgement] {
    guard let refused = refusedChainJudgement else { return judgements }
    return judgements + [refused]
  }
}

/// What `CurlTransfer.receiveBody` did with the bytes it was given.
enum BodyReceipt {
  case taken
  /// Not taken yet: libcurl holds them and offers them again when woken.
  case paused
  /// The transfer must stop (the reason is recorded).
  case refused
}

/// What a finished transfer tells the requesting task.
struct TransferReport: Sendable {
  let result: Result<CurlResponse, CNPinnedSessionError>
  /// Every verdict on the request's connections, for observer events and failure reports.
  let judgements: [Judgement]
  /// Nanoseconds from handing the request to the multi handle to this report (the time the
  /// request spent queued and in libcurl, without the requesting task's own scheduling).
  let networkTime: UInt64
  /// Whether the transport may send the request again on a fresh connection (see
  /// `CurlTransfer.mayBeSentAgain`).
  let mayBeSentAgain: Bool
}

/// What a transfer received: the response head as bytes and the body. It is read in the
/// requesting task, after the transfer.
struct CurlResponse: Sendable {
  let head: ResponseHead
  let body: Data

  func outcome(for plan: RequestPlan) throws(CNPinnedSessionError) -> TransferOutcome {
    if plan.connectOnly {
      return TransferOutcome(
        response: HTTPURLResponse(url: plan.url, statusCode: 200, httpVersion: nil, headerFields: nil)!, body: Data())
    }
    guard let outcome = TransferOutcome(head: head, url: plan.url, body: body) else {
      throw .invalidResponse(host: plan.host, reason: "no HTTP status line")
    }
    return outcome
  }
}
#endif
