#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Foundation
import FoundationNetworking

/// Carries a URLSession's `http` and `https` requests through a ``CNPinnedSession`` (see
/// `URLSessionConfiguration.cnPinned(manager:configuration:)`).
///
/// FoundationNetworking gives a protocol no way to reach its URLSession or configuration, so
/// each pinned configuration gets its own protocol class: `CNPinningURLProtocol<Slot>`, where
/// the slot type names that configuration's session in ``PinnedSessions``.
final class CNPinningURLProtocol<Slot: SessionSlot>: URLProtocol {
  /// The load in flight; stopped by ``stopLoading``.
  private var loading: Loading?
  /// Set by ``stopLoading``: a load stopped before it started never starts (URLSession has
  /// already finished the task).
  private var isStopped = false

  /// Every request of a pinned configuration is this protocol's: a scheme it declined would go
  /// to FoundationNetworking's own protocols (ftp in clear, WebSocket with the system's trust),
  /// around the pins. `http` and `https` go through the pinned session; any other scheme fails
  /// in `startLoading`, naming it.
  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  /// Called by FoundationNetworking on the URLSession task's work queue, as is `stopLoading`.
  override func startLoading() {
    guard !isStopped, let client else { return }
    guard let scheme = request.url?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
      let scheme = request.url?.scheme.map { "\"\($0):\"" } ?? "scheme-less"
      client.urlProtocol(
        self,
        didFailWithError: Self.unsupported(
          "a pinned URLSession configuration carries only http and https: \(scheme) URLs are refused, not sent unpinned", request)
      )
      return
    }
    let unreadable = Self.unsupported("this Foundation's URLSession task cannot be read", request)
    guard let session = PinnedSessions.session(at: Slot.index), let task else {
      client.urlProtocol(self, didFailWithError: unreadable)
      return
    }
    let internals: TaskInternals.Reading
    var request: SessionRequest
    do throws(URLError) {
      guard let reading = try TaskInternals.reading(of: task) else { throw unreadable }
      internals = reading
      request = try Self.request(for: task, body: reading.body, self.request)
    } catch {
      client.urlProtocol(self, didFailWithError: error)
      return
    }
    // The URLSession's configuration: its headers (under the request's own, kept to the original
    // origin like them) and its cookie storage, used hop by hop.
    let settings = internals.session.configuration
    var sessionHeaders: [String: String] = [:]
    for case (let name as String, let value as String) in settings.httpAdditionalHeaders ?? [:] { sessionHeaders[name] = value }
    request.fields = RequestHeaders.merged(request.fields, additional: sessionHeaders, withheld: nil)
    let cookies = settings.httpShouldSetCookies ? settings.httpCookieStorage : nil
    // With a storage in use, FoundationNetworking copied the storage's cookies into the request
    // when the task was made (Secure ones, ones planted on a public suffix, whatever the request's
    // httpShouldHandleCookies says), appended to any Cookie the app had set. The two can no
    // longer be told apart, and the storage may have changed since, so that header is never
    // sent: the pinned session derives Cookie from the storage as each hop goes, under its rules.
    // Without a storage in use, a Cookie the app set is its own and goes as set.
    if cookies != nil { request = request.removingFields(["cookie"]) }
    // A task whose data goes to a delegate gets the body as it arrives; a completion-handler
    // task keeps only the last piece it is given, so it gets the body whole, in one report
    // (without a delegate, no task can be the delegate's).
    let streams =
      internals.session.delegate != nil && TaskInternals.hasDataDelegate(task, of: internals.session) == true
    let loading = Loading(
      protocol: self, client: client, queue: internals.workQueue, delegateQueue: streams ? internals.session.delegateQueue : nil)
    self.loading = loading
    loading.transfer = Task { [request] in
      do {
        guard streams else {
          let (outcome, _) = try await session.exchange(request, into: BodyInMemory.self, cookies: .storage(cookies))
          loading.deliver(outcome.response, outcome.body)
          return
        }
        let (outcome, body) = try await session.exchange(request, into: ResponseBodyChannel.self, cookies: .storage(cookies))
        let response = outcome.response
        loading.respond(response)
        while let chunk = try await body.next() { await loading.load(chunk) }
        loading.finish()
      } catch {
        loading.fail(URLErrorMapping.urlError(for: error, url: request.url))
      }
    }
  }

  /// The request to send, and `body`, the one an upload task was given (not in the task's request),
  /// streamed when it is a file or a stream. Download tasks are refused: FoundationNetworking
  /// finishes them only for its own protocols.
  private static func request(for task: URLSessionTask, body: TaskInternals.Body?, _ request: URLRequest) throws(URLError)
    -> SessionRequest
  {
    if task is URLSessionDownloadTask {
      throw unsupported("download tasks are not pinned yet: use data(for:) (or CNPinnedSession.download(for:))", request)
    }
    var sent = SessionRequest(request)
    switch body {
    case nil: break
    case .data(let data): sent.body = .data(data)
    case .file(let url): sent.body = .upload(.file(url))
    case .stream(let stream): sent.body = .upload(.stream(UploadSource.BodyStream(stream: stream)))
    }
    return sent
  }

  private static func unsupported(_ reason: String, _ request: URLRequest) -> URLError {
    var info: [String: Any] = [NSLocalizedDescriptionKey: reason]
    if let url = request.url { info[NSURLErrorFailingURLErrorKey] = url }
    return URLError(.unsupportedURL, userInfo: info)
  }

  override func stopLoading() {
    isStopped = true
    loading?.stop()
  }
}

/// One load's way back to URLSession. FoundationNetworking expects every protocol-client call on
/// the task's work queue (its task registry is confined to it); ``startLoading`` and ``stopLoading``
/// are called there too. So the transfer's outcome is handed to that queue, and once the load is
/// stopped nothing more is reported: URLSession has already finished the task.
///
/// A body read as it arrives goes to the task's data delegate with back-pressure: at most
/// ``bytesInFlight`` bytes are handed on that the delegate has not returned from (a barrier on the
/// session's delegate queue after each piece tells), and the transfer waits for room, so a slow
/// delegate slows the network, as a slow reader of ``bytes(for:)`` does, instead of the pieces
/// piling up in memory. FoundationNetworking's own protocol has no such bound.
// The pieces in flight are behind a lock, and `stopped` and `transfer` are touched only on `queue`.
// Unchecked Sendable: its state is behind a lock or touched only on the task's work queue (`queue`).
private final class Loading: @unchecked Sendable {
  /// The most bytes handed to the delegate's queue and not yet taken by the delegate.
  static let bytesInFlight = 1 << 20  // as a body channel holds unread

  private let `protocol`: URLProtocol
  private let client: any URLProtocolClient
  private let queue: DispatchQueue
  /// The session's delegate queue, for a body handed on as it arrives; nil otherwise.
  private let delegateQueue: OperationQueue?
  /// Touched only on `queue`.
  private var stopped = false
  /// Set once, on `queue`, before anything is reported.
  var transfer: Task<Void, Never>?

  private struct InFlight {
    var bytes = 0
    var ended = false
    var waiting: CheckedContinuation<Void, Never>?
  }
  private let inFlight = Locked(InFlight())

  init(protocol: URLProtocol, client: any URLProtocolClient, queue: DispatchQueue, delegateQueue: OperationQueue?) {
    self.protocol = `protocol`
    self.client = client
    self.queue = queue
    self.delegateQueue = delegateQueue
  }

  /// The response and its whole body, reported at once.
  func deliver(_ response: HTTPURLResponse, _ body: Data) {
    report { client, `protocol` in
      client.urlProtocol(`protocol`, didReceive: response, cacheStoragePolicy: .notAllowed)
      if !body.isEmpty { client.urlProtocol(`protocol`, didLoad: body) }
      client.urlProtocolDidFinishLoading(`protocol`)
    }
  }

  func respond(_ response: HTTPURLResponse) {
    report { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
  }

  /// Hands a piece of the body on once there is room for it, and counts it out until the
  /// delegate has returned from it (or the load ended).
  func load(_ data: Data) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let proceed = inFlight.withLock { state -> Bool in
        guard !state.ended, state.bytes >= Self.bytesInFlight else { return true }
        state.waiting = continuation
        return false
      }
      if proceed { continuation.resume() }
    }
    inFlight.withLock { $0.bytes += data.count }
    queue.async { [self] in
      guard !stopped else { return release(data.count) }
      client.urlProtocol(`protocol`, didLoad: data)
      guard let delegateQueue else { return release(data.count) }
      // Runs once the delegate's operations queued before it, this piece's among them, are done.
      delegateQueue.addBarrierBlock { [self] in release(data.count) }
    }
  }

  /// The waiting load is resumed under the lock it takes first once it runs on, which lets
  /// ThreadSanitizer see the hand-off (docs/decisions/testing.md).
  private func release(_ count: Int) {
    inFlight.withLock { state in
      state.bytes -= count
      guard state.bytes < Self.bytesInFlight else { return }
      state.waiting?.resume()
      state.waiting = nil
    }
  }

  func finish() {
    report { $0.urlProtocolDidFinishLoading($1) }
  }

  /// Runs `call` on `queue` unless the load was stopped by then.
  private func report(_ call: @escaping @Sendable (any URLProtocolClient, URLProtocol) -> Void) {
    queue.async { [self] in
      guard !stopped else { return }
      call(client, `protocol`)
    }
  }

  func fail(_ error: URLError) {
    queue.async { [self] in
      guard !stopped else { return }
      client.urlProtocol(`protocol`, didFailWithError: error)
    }
  }

  /// On `queue`.
  func stop() {
    stopped = true
    transfer?.cancel()
    inFlight.withLock { state in
      state.ended = true
      state.waiting?.resume()
      state.waiting = nil
    }
  }
}
#endif
