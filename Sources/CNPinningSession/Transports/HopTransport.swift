import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange as ``CNPinnedSession`` hands it to its transport, with everything decided
/// about it before the network: its checked target, the pins in force when it started, the
/// transport-security rules for its host and where its body goes. An object, so that handing it
/// on is a retain, not a copy of every field.
package final class Hop: Sendable {
  /// The request as the caller made it: its method, URL and body (its fields go out as ``fields``).
  package let request: SessionRequest
  package let target: RequestTarget
  /// The fields that go out, for the origin and for a proxy, with the configuration's and the
  /// hop's cookies, withheld credentials left out: decided here once, written by the transport.
  package let fields: HopFields
  package let manager: CNPinningManager?
  /// The transport-security rules for the host, its TLS floor included.
  package let rules: TransportRules
  package let destination: BodyDestination
  package let progress: CNTransferProgress?
  /// The body to stream, when the request's is read as it is sent.
  package var upload: UploadSource? {
    if case .upload(let upload) = request.body { return upload }
    return nil
  }
  /// Whether an observer wants the certificates the server presented.
  package let wantsPresentedChain: Bool
  /// A handshake without a request (`probe`).
  package let connectOnly: Bool
  /// What follows the hop's verdicts (failure reports and uploads), and who gets its events.
  package let effects: ConnectionEffects
  package let observer: (@Sendable (CNConnectionEvent) -> Void)?

  init(
    request: SessionRequest, target: RequestTarget, fields: HopFields, manager: CNPinningManager?,
    rules: TransportRules, destination: BodyDestination, progress: CNTransferProgress?, wantsPresentedChain: Bool,
    connectOnly: Bool, effects: ConnectionEffects, observer: (@Sendable (CNConnectionEvent) -> Void)?
  ) {
    self.request = request
    self.target = target
    self.fields = fields
    self.manager = manager
    self.rules = rules
    self.destination = destination
    self.progress = progress
    self.wantsPresentedChain = wantsPresentedChain
    self.connectOnly = connectOnly
    self.effects = effects
    self.observer = observer
  }

  /// Emits `judgements` of the hop's connections (observer events, failure reports): the report's,
  /// and on Apple platforms a stream's connection judged again at its end, when its metrics name
  /// it (issue 53, M1: a refusal there was never emitted or reported).
  package func emit(_ judgements: [Judgement]) {
    effects.emit(
      judgements, host: target.host, port: target.port, hostName: target.hostName, manager: manager, observer: observer,
      label: request.label)
  }
}

/// What a transport reports of one hop: the outcome, every verdict on its connections (for the
/// observer events and failure reports that follow, whatever the outcome), and, on Linux, the
/// time libcurl's side took.
package struct HopReport: Sendable {
  let outcome: Result<TransferOutcome, CNPinnedSessionError>
  let judgements: [Judgement]
  /// Nanoseconds from handing the hop to libcurl's side to its report; nil where the
  /// platform's URLSession does the work.
  let networkTime: UInt64?

  package init(outcome: Result<TransferOutcome, CNPinnedSessionError>, judgements: [Judgement], networkTime: UInt64?) {
    self.outcome = outcome
    self.judgements = judgements
    self.networkTime = networkTime
  }
}

/// What one HTTP exchange produced (redirects are separate exchanges). On Linux the head as
/// received, read only as far as asked: Foundation's `HTTPURLResponse` is made only for the
/// callers that return one (its initialiser canonicalises every field name, the largest single
/// cost of a small request), and `exchange(_:)` never asks for it. On Apple platforms,
/// URLSession's response.
package struct TransferOutcome: Sendable {
  package let statusCode: Int
  package let body: Data
  /// The URL the response is for.
  package let url: URL?
  // Two stored properties rather than an enum of the two: each read of the enum's payload (a
  // head and a URL) copied it through its metadata, about 180 instructions.
  /// The head as received here; empty when URLSession received the response.
  private let head: ResponseHead
  /// URLSession's response; nil when the head was received here.
  private let urlSessionResponse: HTTPURLResponse?

  /// URLSession's response and the body.
  package init(response: HTTPURLResponse, body: Data) {
    statusCode = response.statusCode
    self.body = body
    url = response.url
    head = ResponseHead()
    urlSessionResponse = response
  }

  /// A head received here for `url`, and the body; nil when the head has no status line.
  package init?(head: ResponseHead, url: URL, body: Data) {
    guard let statusCode = head.statusCode else { return nil }
    self.statusCode = statusCode
    self.body = body
    self.url = url
    self.head = head
    urlSessionResponse = nil
  }

  /// Foundation's response, made (afresh) when asked on Linux.
  package var response: HTTPURLResponse {
    if let urlSessionResponse { return urlSessionResponse }
    return head.response(for: url!)!
  }

  /// The value of the field `name` (any case), repeats joined by ", "; nil without one.
  package func value(forField name: String) -> String? {
    if let urlSessionResponse { return urlSessionResponse.value(forHTTPHeaderField: name) }
    return head.value(forField: name)
  }

  /// The response's header fields: in order and with repeats when the head was received here;
  /// otherwise URLSession's, sorted by name (it joins repeats and keeps no order).
  package var fields: [CNHTTPField] {
    if let urlSessionResponse {
      return urlSessionResponse.allHeaderFields
        .compactMap { name, value in (name as? String).map { CNHTTPField(name: $0, value: "\(value)") } }
        .sorted { FieldName.key($0.name) < FieldName.key($1.name) }
    }
    return head.orderedFields() ?? []
  }
}

/// The seam between ``CNPinnedSession`` and the platform that moves its bytes: libcurl and
/// OpenSSL on Linux (``CurlTransport``), URLSession on Apple platforms (``URLSessionTransport``).
/// The session decides everything that needs no network (targets, the unpinned-host rule, plain
/// http to pinned hosts, redirects, effects); a transport runs one hop and says what happened.
package protocol HopTransport: Sendable {
  /// Runs one hop. Cancelling the calling task cancels it.
  nonisolated(nonsending) func exchange(_ hop: Hop) async -> HopReport
  /// Fails every hop in flight with `sessionInvalidated`; later hops fail the same way.
  func invalidate()
  /// The name of the network thread, for diagnostics (empty where URLSession has its own).
  var threadName: String { get }
  /// How many transfers ran on their requesting task's thread, for tests (0 where URLSession
  /// runs them).
  var borrowedTransfers: Int { get }
  /// Where tasks that prefer the session's thread run (``CNPinnedSession/executor``).
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  var executor: any TaskExecutor { get }
}

/// Makes a session's transport for its configuration. The public API on top chooses the
/// platform's (``CNPinnedSession/platformTransport``); the engine and its report uploads use it.
package typealias TransportMaker = @Sendable (CNPinnedSessionConfiguration) throws(CNPinnedSessionError) -> any HopTransport
