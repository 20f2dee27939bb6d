#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningCurl
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's side of one request through libcurl (`CurlJob`): it judges the connection,
/// takes the head and the body, feeds a streamed request body, and turns the end into the
/// session's outcome. Every decision of a transfer is made here; the job only moves bytes and
/// collects facts.
///
/// Created on the caller's thread; from `CurlMultiLoop.perform` on, touched only by the
/// session's driver (inside the job's callbacks), except `report`, which the requesting task
/// reads after the delivery (which orders the driver's writes before the task's reads).
// Its driver-only variables are @exclusivity(unchecked) (docs/decisions/session-linux.md, "No runtime exclusivity checks on the driver's variables").
// Unchecked Sendable: touched only by the driver until the delivery, and read by the requesting task only after it.
final class CurlTransfer: CurlTransferEvents, @unchecked Sendable {
  let plan: RequestPlan
  let policy: RequestPolicy
  let delivery = CurlDelivery()
  /// The report, written once before the delivery.
  @exclusivity(unchecked) private var report: TransferReport?
  /// Whether the request was sent once already (libcurl sends it again on a fresh connection
  /// after a reused one closed before any answer).
  @exclusivity(unchecked) private var requestSent = false
  /// Whether libcurl ended the transfer with its HTTP/2 framing error.
  @exclusivity(unchecked) private var failedWithHTTP2Framing = false
  /// Whether the transfer was stopped before sending because its reused connection had been
  /// closed by the server.
  @exclusivity(unchecked) private var foundStaleConnection = false
  /// Every verdict on this request's connections, in order.
  @exclusivity(unchecked) private(set) var judgements: [Judgement] = []
  @exclusivity(unchecked) private(set) var head = ResponseHead()
  @exclusivity(unchecked) private(set) var body = Data()
  /// Decoded body bytes received so far.
  @exclusivity(unchecked) private var bodyBytes = 0
  /// Where the caller follows the body's progress; started at the first body bytes.
  private let progress: CNTransferProgress?
  @exclusivity(unchecked) private var progressStarted = false
  /// Why the transfer stopped reading the response, when it did.
  @exclusivity(unchecked) private var refusedResponse: CNPinnedSessionError?
  /// Why the request body could not be sent, when it could not.
  @exclusivity(unchecked) private var uploadFailure: CNPinnedSessionError?
  /// The streamed request body, held to its length as it is sent.
  @exclusivity(unchecked) private var sentBody: StatedLengthBody?
  private let destination: BodyDestination
  /// The judgement of a handshake whose chain OpenSSL refused, when that is how it ended.
  @exclusivity(unchecked) private var refusedChain: Judgement?
  /// Header lines received, and whether ALPN chose HTTP/2 for the connection the request went on.
  @exclusivity(unchecked) private var headerLines = 0
  @exclusivity(unchecked) private var servedOverHTTP2 = false

  init(plan: RequestPlan, policy: RequestPolicy, destination: BodyDestination, progress: CNTransferProgress? = nil) {
    self.progress = progress
    self.plan = plan
    self.policy = policy
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

  // MARK: - The job's events (the driver)

  func judgePlain(resend: Bool) -> CurlJudgement { mayBeSent(again: resend) ? .proceed(keeping: nil) : .stop }

  /// Whether the request may be sent, or sent again (`again`). A second judgement of one
  /// transfer is libcurl sending the request again on a fresh connection, after a reused one
  /// closed before any answer (redirects are new transfers). The first request may have
  /// reached the server, so only an idempotent one goes again.
  private func mayBeSent(again: Bool) -> Bool {
    guard again, !plan.method.isIdempotent else { return true }
    refusedResponse = .connectionLost(
      host: plan.host,
      reason: "the reused connection closed before an answer; the \(plan.method.name) is not sent again, "
        + "as the server may have acted on it")
    return false
  }

  func judge(_ facts: CurlConnectionFacts, resend: Bool, connectionHasInput: () -> Bool) -> CurlJudgement {
    guard mayBeSent(again: resend) else { return .stop }
    let use = facts.use.kind
    let verified = facts.verified as? VerifiedChain
    // libcurl takes an idle HTTP/1 connection for alive when its socket holds bytes (it peeks
    // for a FIN only), and a server that closed it properly has sent close_notify first. Sending
    // on it loses the request, which libcurl then sends again on a fresh connection; for a POST
    // that is refused above, so such a request is stopped here, before any of it is sent, and
    // the transport sends it on a fresh connection.
    if use == .reused, !plan.method.isIdempotent, facts.applicationProtocol != "h2", connectionHasInput() {
      foundStaleConnection = true
      refusedResponse = .connectionLost(host: plan.host, reason: "the server closed the idle connection; nothing was sent")
      return .stop
    }
    let now = plan.clock()
    // A kept verdict needs only the connection's use and chain: its facts are made only for a
    // judgement afresh.
    let kept = facts.keptVerdict as? KeptVerdict
    if let kept, let judgement = kept.judgement(use: use, chain: verified, under: policy, at: now) {
      judgements.append(judgement)
      return .proceed(keeping: kept)
    }
    let connection = ConnectionFacts(
      use: use, protocolVersion: facts.protocolVersion, cipher: facts.cipher, verified: verified,
      applicationProtocol: facts.applicationProtocol)
    let judgement = ConnectionVerdict.judge(connection, under: policy, at: now)
    judgements.append(judgement)
    guard judgement.rejection == nil else { return .refuseConnection }
    return .proceed(keeping: KeptVerdict(judgement, of: connection, under: policy, at: now))
  }

  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> CurlBodyReceipt {
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
      if bodyBytes == 0 { deliver(received(head, body: Data()))?.resume() }
      if channel.offer(bytes) == .paused { return .paused }
    }
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

  func sendBody(_ buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead {
    guard sentBody != nil else { return .end }
    switch sentBody!.read(into: buffer) {
    case .bytes(let count): return .bytes(count)
    case .end: return .end
    case .paused: return .paused
    case .failed(let failure):
      uploadFailure = failure
      return .failed
    }
  }

  func rewindBody() -> Bool { sentBody?.rewind() ?? false }

  /// The report, moved out (not copied) for the requesting task, after the delivery.
  func takeReport() -> TransferReport { report.take()! }

  func idleTimeoutPassed() { refusedResponse = .timedOut(host: plan.host, seconds: plan.timeout?.seconds ?? .infinity) }

  func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
    headerLines += 1
    guard head.consume(line: bytes) else {
      refusedResponse = .invalidResponse(
        host: plan.host, reason: "the response headers exceed \(ResponseHead.maximumSize / 1024) KiB")
      return false
    }
    if head.unknownVersion {
      refusedResponse = .invalidResponse(
        host: plan.host, reason: "the status line is not valid HTTP: it names an HTTP version other than 1.0, 1.1 or 2")
      return false
    }
    // RFC 9112 §6.3: differing lengths make the framing invalid, and libcurl would frame the
    // body by the last while the head's readers see the first; the response is refused.
    if let (first, other) = head.conflictingContentLengths {
      refusedResponse = .invalidResponse(
        host: plan.host,
        reason: "the response has Content-Length fields that differ (\(Self.shown(first)) and \(Self.shown(other)))")
      return false
    }
    return true
  }

  /// A server's value in an error: escaped, and cut at 40 characters.
  private static func shown(_ value: String) -> String {
    VisibleText.quoted(value.count > 40 ? String(value.prefix(40)) + "…" : value)
  }

  /// Ends the request: a streamed request body is released, a streamed response body ends (with
  /// the error, if any), and the outcome is delivered unless the task already has the response.
  func end(_ end: CurlEnd) -> CurlDelivery.Resumption? {
    let failure: CNPinnedSessionError?
    switch end {
    case .finished(let completion): failure = error(of: completion)
    case .cancelled: failure = .cancelled
    case .sessionStopped: failure = .sessionInvalidated
    case .notStarted(let reason): failure = .transferFailed(host: plan.host, reason: reason)
    }
    plan.streamedBody?.close()
    if case .channel(let channel) = destination { channel.finish(failure) }
    // A streamed response was delivered as its body started: its outcome is not made again.
    guard !delivery.hasDelivered else { return nil }
    if let failure { return deliver(.failure(failure)) }
    return deliver(succeeded())
  }

  // MARK: - Outcome (the driver)

  /// Why the request failed, given libcurl's completion and what was recorded; nil when it did not.
  private func error(of completion: CurlCompletion) -> CNPinnedSessionError? {
    let result = completion.result
    failedWithHTTP2Framing = result.kind == .http2
    servedOverHTTP2 = completion.servingProtocol == "h2"
    refusedChain = ConnectionVerdict.judgeRefusedChain(completion.handshake, under: policy)
    if let rejection = judgements.last?.rejection { return rejection }
    if let refusedResponse { return refusedResponse }
    if let uploadFailure { return uploadFailure }
    guard result.isSuccess else {
      if let refused = refusedChain?.rejection { return refused }
      // libcurl from 8.x fails a body the connection's end delimits when TLS ended without
      // close_notify (7.88 takes it as whole, and the session refuses it below): the same
      // refusal, in the same words, on every libcurl.
      if [.receiveError, .partialFile].contains(result.kind), let truncation = truncatedBody(completion) {
        return truncation
      }
      return CurlErrorMapping.error(for: completion, bodyBytes: bodyBytes, plan: plan, policy: policy)
    }
    if plan.isHTTPS, judgements.isEmpty {
      return .untrustedChain(host: plan.host, reason: "the connection was not verified")
    }
    return truncatedBody(completion)
  }

  /// The outcome of a request that succeeded. The head and body move out rather than being
  /// copied: the transfer has no more use for them once it has ended.
  private func succeeded() -> Result<TransferOutcome, CNPinnedSessionError> {
    if plan.connectOnly {
      return .success(
        TransferOutcome(
          response: HTTPURLResponse(url: plan.url, statusCode: 200, httpVersion: nil, headerFields: nil)!, body: Data()))
    }
    var head = ResponseHead()
    var body = Data()
    swap(&head, &self.head)
    swap(&body, &self.body)
    return received(head, body: body)
  }

  /// The outcome of a response received here. Made on the network thread, and cheap: it keeps
  /// the head as received, and Foundation's `HTTPURLResponse` is made only when a caller asks,
  /// in its task. Made by the transfer, the outcome is handed over once; made from the head and
  /// body in the requesting task, it was copied twice more through its metadata.
  private func received(_ head: ResponseHead, body: Data) -> Result<TransferOutcome, CNPinnedSessionError> {
    guard let outcome = TransferOutcome(head: head, url: plan.url, body: body) else {
      return .failure(.invalidResponse(host: plan.host, reason: "no HTTP status line"))
    }
    return .success(outcome)
  }

  /// A body delimited by the connection's end that ended without the server's TLS close_notify:
  /// the end may be an attacker's or a network's cut, so the body is refused rather than taken
  /// for complete (libcurl, as browsers do, accepts it).
  private func truncatedBody(_ completion: CurlCompletion) -> CNPinnedSessionError? {
    guard plan.isHTTPS, completion.served, !completion.servingReceivedCloseNotify, completion.servingProtocol != "h2",
      Self.bodyEndsWithConnection(completion.result.framing, endsChunked: head.endsChunked, isHEAD: plan.method.isHEAD)
    else { return nil }
    if head.namedChunked {
      // libcurl read chunks; RFC 9112 §6.3 reads a body whose last coding is not chunked to
      // the connection's end. Framed two ways, it is refused, saying so.
      return .invalidResponse(
        host: plan.host,
        reason:
          "its Transfer-Encoding names chunked, but not as the last coding (a later field or coding follows it): RFC 9112 then frames the body by the connection's end, which came without TLS close_notify, and libcurl by the chunks; a body framed two ways is refused"
      )
    }
    return .connectionLost(
      host: plan.host, reason: "the connection ended without TLS close_notify, so the body may be truncated")
  }

  /// Whether an HTTP/1 response's body ends only where the connection does (RFC 9112 §6.3), as
  /// libcurl framed it: a status that may have a body (libcurl's code, however the status line
  /// was spaced or versioned), no length libcurl framed it by (none, one it could not read, or
  /// one a Transfer-Encoding overrides), and no chunks. libcurl reports an unfinished chunked or
  /// length-framed body as an error; only this shape ends "successfully" when cut.
  static func bodyEndsWithConnection(_ framing: CurlResult.Framing, endsChunked: Bool, isHEAD: Bool) -> Bool {
    let code = framing.responseCode
    return !isHEAD && code >= 200 && code != 204 && code != 304 && framing.statedLength < 0 && !endsChunked
  }

  /// Hands the outcome and every judgement to the requesting task, as values: from here on the
  /// task reads nothing else of this object. Later calls do nothing.
  private func deliver(_ result: consuming Result<TransferOutcome, CNPinnedSessionError>) -> CurlDelivery.Resumption? {
    guard !delivery.hasDelivered else { return nil }
    let mayBeSentAgain = mayBeSentAgain(result)
    report = TransferReport(result: result, judgements: allJudgements, mayBeSentAgain: mayBeSentAgain)
    return delivery.deliver()
  }

  /// Whether the request can go again on a fresh connection: it was stopped before anything was
  /// sent because its reused connection had been closed, or it failed on a reused HTTP/2
  /// connection with libcurl's HTTP/2 framing error before any byte of an answer, which is how
  /// libcurl 7.88 ends a stream the server refused with GOAWAY (it would retry one refused with
  /// REFUSED_STREAM itself), and it is idempotent, held in memory both ways, so that nothing of
  /// it reached the caller.
  private func mayBeSentAgain(_ result: Result<TransferOutcome, CNPinnedSessionError>) -> Bool {
    guard case .failure = result else { return false }
    if foundStaleConnection { return plan.streamedBody == nil && destination.holdsBody }
    guard failedWithHTTP2Framing, headerLines == 0, bodyBytes == 0, servedOverHTTP2, judgements.count == 1,
      judgements[0].use == .reused, judgements[0].rejection == nil,
      plan.method.isIdempotent, plan.streamedBody == nil, destination.holdsBody
    else { return false }
    return true
  }

  /// Every judgement made for this request, for observers and reports.
  private var allJudgements: [Judgement] {
    guard let refusedChain else { return judgements }
    return judgements + [refusedChain]
  }
}

extension CurlConnectionFacts.Use {
  /// The event's kind for the connection's use.
  var kind: CNConnectionEvent.Kind {
    switch self {
    case .new: .new
    case .reused: .reused
    case .resumed: .resumed
    }
  }
}

/// What a finished transfer tells the requesting task.
struct TransferReport: Sendable {
  let result: Result<TransferOutcome, CNPinnedSessionError>
  /// Every verdict on the request's connections, for observer events and failure reports.
  let judgements: [Judgement]
  /// Whether the transport may send the request again on a fresh connection (see
  /// `CurlTransfer.mayBeSentAgain`).
  let mayBeSentAgain: Bool
}
#endif
