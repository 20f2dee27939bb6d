import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTPS session that verifies trust and host names as usual and then enforces the pins of a
/// `CNPinningManager` on every connection, shaped like `URLSession`'s async API.
///
/// On Linux it runs on libcurl and OpenSSL: Foundation's `URLSession` there never hands a
/// server-trust challenge to a delegate, so it cannot pin at all.
///
/// ```swift
/// let session = try CNPinnedSession(manager: try CNPinningManager(contentsOf: pinsURL))
/// let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)
/// ```
public final class CNPinnedSession: Sendable {
  /// The settings the session was made with, its trust and unpinned-host rule included.
  public let configuration: CNPinnedSessionConfiguration
  private let state: Locked<State>
  /// Observer events, failure reports and uploads, after each hop.
  private let effects: ConnectionEffects
  /// `configuration.transportSecurity`, indexed; nil when it is off.
  private let transportSecurity: IndexedTransportSecurity?
  /// libcurl and OpenSSL on Linux, URLSession on Apple platforms.
  private let transport: PlatformTransport

  private struct State {
    var manager: CNPinningManager?
    var observer: (@Sendable (CNConnectionEvent) -> Void)?
    /// Receives each request's time on the network thread, for tests of the loop's latency.
    var networkTimeObserver: (@Sendable (_ nanoseconds: UInt64) -> Void)?
    /// Set by `invalidateAndCancel`; every later request fails with `sessionInvalidated`, on
    /// every platform, before it reaches a transport (an invalidated URLSession raises an
    /// Objective-C exception when asked for a task).
    var invalidated = false
  }

  /// Creates a session. `manager` nil pins nothing (every host is unpinned).
  ///
  /// Pin failures are reported to `configuration.failureReporter` and, when the host's
  /// configuration has a `reportURI`, POSTed there (identical reports at most once a day).
  public convenience init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration = .default) throws {
    try self.init(manager: manager, configuration: configuration, reportsFailures: true)
  }

  init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration, reportsFailures: Bool) throws {
    guard configuration.httpMaximumConnectionsPerHost >= 1 else {
      throw CNPinnedSessionError.invalidArgument(
        "httpMaximumConnectionsPerHost must be at least 1, not \(configuration.httpMaximumConnectionsPerHost)")
    }
    self.effects = ConnectionEffects(
      reporter: configuration.failureReporter ?? CNPinningReporter(),
      uploader: reportsFailures ? ReportUploader(manager: manager, configuration: configuration) : nil)
    self.configuration = configuration
    self.transportSecurity = try configuration.transportSecurity.indexed()
    self.state = Locked(State(manager: manager, observer: nil))
    self.transport = try PlatformTransport(configuration: configuration)
  }

  /// The one place a session's transport is stopped when the session goes (the network thread
  /// on Linux; the URLSession, which holds its delegate, on Apple platforms).
  deinit { transport.invalidate() }

  /// The pins in force. Replacing the manager affects every request that starts afterwards,
  /// including requests that reuse an open connection: each is judged against the pins in force
  /// when it starts.
  public var manager: CNPinningManager? {
    get { state.withLock { $0.manager } }
    set { state.withLock { $0.manager = newValue } }
  }

  /// Receives one event per request judged (on a new, reused or resumed connection), from the
  /// requesting task after the verdict, before the request returns; never on the network thread.
  public func setConnectionObserver(_ observer: (@Sendable (CNConnectionEvent) -> Void)?) {
    state.withLock { $0.observer = observer }
  }

  /// Returns once every failure-report upload this session started has ended, so that a test
  /// can tell "not uploaded" from "not uploaded yet" without sleeping.
  package func failureReportUploadsSettled() async { await effects.uploader?.settle() }

  /// Receives, for every request, the nanoseconds from handing it to libcurl's side (the network
  /// thread, or the requesting thread driving an idle session) until its response (or error)
  /// came back: the loop's share of the request's latency, free of the requesting task's
  /// scheduling. For tests; nil stops it. (Linux only.)
  package func setNetworkTimeObserver(_ observer: (@Sendable (_ nanoseconds: UInt64) -> Void)?) {
    state.withLock { $0.networkTimeObserver = observer }
  }

  /// Loads `request`, following redirects (each hop is judged by its own host's pins).
  /// Throws `CNPinnedSessionError`.
  public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    try await load(request, progress: nil)
  }

  /// Loads `request` as `data(for:)` does, updating `progress` as the body arrives.
  public func data(for request: URLRequest, progress: CNTransferProgress) async throws -> (Data, HTTPURLResponse) {
    try await load(request, progress: progress)
  }

  /// Loads `url` with a GET request.
  public func data(from url: URL) async throws -> (Data, HTTPURLResponse) {
    try await data(for: URLRequest(url: url))
  }

  /// Loads `request` into a temporary file, for bodies too large to hold in memory. The caller
  /// owns the file and should move or delete it.
  public func download(for request: URLRequest) async throws -> (URL, HTTPURLResponse) {
    try await downloadFile(request, progress: nil)
  }

  /// Downloads `request` as `download(for:)` does, updating `progress` as the body arrives.
  public func download(for request: URLRequest, progress: CNTransferProgress) async throws -> (URL, HTTPURLResponse) {
    try await downloadFile(request, progress: progress)
  }

  /// Downloads `url` with a GET request into a temporary file.
  public func download(from url: URL) async throws -> (URL, HTTPURLResponse) {
    try await download(for: URLRequest(url: url))
  }

  /// Connects to `host` and `port`, runs the TLS handshake with all of the session's checks, and
  /// disconnects without sending a request. Returns what was decided about the connection: the
  /// verified and presented chains and the pin result. Throws when the connection is refused,
  /// with the event (when the handshake got that far) in `CNProbeError`.
  public func probe(host: String, port: Int = 443) async throws -> CNConnectionEvent {
    let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    guard (1...65535).contains(port), let url = URL(string: "https://\(authority):\(port)/") else {
      throw CNPinnedSessionError.invalidURL("https://\(authority):\(port)/")
    }
    let events = Locked<[CNConnectionEvent]>([])
    let outer = state.withLock { $0.observer }
    let observer: @Sendable (CNConnectionEvent) -> Void = { event in
      events.withLock { $0.append(event) }
      outer?(event)
    }
    do {
      _ = try await perform(URLRequest(url: url), destination: .memory, observer: observer, connectOnly: true)
    } catch {
      throw CNProbeError(error: error, event: events.withLock { $0.last })
    }
    guard let event = events.withLock({ $0.last }) else {
      throw CNProbeError(error: .untrustedChain(host: host, reason: "no TLS handshake took place"), event: nil)
    }
    return event
  }

  /// The name of the session's network thread (`CNPSession-N`), for diagnostics.
  package var threadName: String { transport.threadName }

  /// How many transfers drove the idle session on their caller's thread rather than on the
  /// network thread (Linux), for tests of that path.
  package var borrowedTransfers: Int { transport.borrowedTransfers }

  /// Fails every request in flight with `sessionInvalidated` and refuses new ones.
  public func invalidateAndCancel() {
    state.withLock { $0.invalidated = true }
    transport.invalidate()
  }

  private func load(_ request: URLRequest, progress: CNTransferProgress?) async throws(CNPinnedSessionError)
    -> (Data, HTTPURLResponse)
  {
    let (outcome, _) = try await exchange(request, upload: nil, toFile: false, progress: progress)
    return (outcome.body, outcome.response)
  }

  private func downloadFile(_ request: URLRequest, progress: CNTransferProgress?) async throws(CNPinnedSessionError)
    -> (URL, HTTPURLResponse)
  {
    let (outcome, file) = try await exchange(request, upload: nil, toFile: true, progress: progress)
    guard let file else { throw .invalidArgument("the download has no file") }
    return (file, outcome.response)
  }

  /// Runs one request and its redirects. With `toFile`, the body is in the returned file (and
  /// the outcome's body is empty).
  /// `cookies`: a storage other than the configuration's (or none), for the URLSession protocol.
  func exchange(
    _ original: URLRequest, upload: UploadSource?, toFile: Bool, progress: CNTransferProgress?,
    cookies: HTTPCookieStorage?? = nil
  ) async throws(CNPinnedSessionError) -> (TransferOutcome, file: URL?) {
    var hops = RedirectChain(original, upload: upload, configuration: configuration, cookies: cookies)
    while true {
      try Task.checkCancellation(or: .cancelled)
      let file = toFile ? try DownloadFile.create() : nil
      let outcome: TransferOutcome
      do {
        outcome = try await perform(
          hops.request, upload: hops.upload, destination: file.map { .file($0.handle) } ?? .memory,
          withheld: hops.withheld, cookies: hops.cookies, progress: progress)
        if let file { try Self.close(file.handle, host: hops.request.url?.host ?? "") }
      } catch {
        if let file { try? FileManager.default.removeItem(at: file.url) }
        throw error
      }
      guard try hops.followRedirect(after: outcome.response) else { return (outcome, file?.url) }
      if let file { try? FileManager.default.removeItem(at: file.url) }
    }
  }

  /// One HTTP exchange, after the checks that need no network.
  /// `withheld`: credential headers that must not be sent (the configuration's included).
  /// `cookies`: where the hop's cookies come from and its response's go.
  func perform(
    _ request: URLRequest, upload: UploadSource? = nil, destination: BodyDestination, withheld: CredentialHeaders? = nil,
    cookies: HTTPCookieStorage? = nil, progress: CNTransferProgress? = nil,
    observer explicitObserver: (@Sendable (CNConnectionEvent) -> Void)? = nil,
    connectOnly: Bool = false
  ) async throws(CNPinnedSessionError) -> TransferOutcome {
    let (manager, sessionObserver, networkTimeObserver, invalidated) = state.withLock {
      ($0.manager, $0.observer, $0.networkTimeObserver, $0.invalidated)
    }
    guard !invalidated else { throw .sessionInvalidated }
    let observer = explicitObserver ?? sessionObserver
    // Checked and canonicalised once: the pins, the exceptions, the unpinned-host rule, TLS and
    // the transport all see the same host. One that cannot be parsed (127.1, 2130706433, …) is
    // refused here, saying why, not left to fail somewhere in OpenSSL.
    let target = try RequestTarget(request.url)
    let name = target.hostName
    let host = target.host
    let isPinned = manager?.configuration(for: name) != nil
    if !isPinned, let manager, let nearMiss = effects.reporter.nearMissWarning(for: host, pins: manager) {
      CNPinningLog.warn(nearMiss)
    }
    if !isPinned && configuration.unpinnedHosts == .deny { throw .hostNotPinned(host: host) }
    if isPinned && !target.isHTTPS { throw .insecureConnectionToPinnedHost(host: host) }
    let requirements = transportSecurity?.requirements(for: name)
    if !target.isHTTPS, let requirements, !requirements.rules.allowsInsecureHTTPLoads {
      throw .transportSecurity(.insecureHTTP(host: host))
    }
    let hop = Hop(
      request: request, target: target, manager: manager, requirements: requirements, upload: upload,
      destination: destination, withheld: withheld, cookies: cookies, progress: progress,
      wantsPresentedChain: observer != nil, connectOnly: connectOnly)
    let report = await transport.exchange(hop)
    if let networkTime = report.networkTime { networkTimeObserver?(networkTime) }
    effects.emit(report.judgements, target: target, manager: manager, observer: observer)
    let outcome = try report.outcome.get()
    Cookies.store(from: outcome.response, of: request, in: cookies)
    return outcome
  }

  /// Closes a finished download, so that a failed final write is an error rather than a short file.
  private static func close(_ handle: FileHandle, host: String) throws(CNPinnedSessionError) {
    do {
      try handle.close()
    } catch {
      throw .transferFailed(host: host, reason: "cannot write the download: \(error.localizedDescription)")
    }
  }
}

extension Task where Success == Never, Failure == Never {
  static func checkCancellation(or error: CNPinnedSessionError) throws(CNPinnedSessionError) {
    if Task.isCancelled { throw error }
  }
}
