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
  /// Uploads failure reports; nil for the session that uploads them (no recursion).
  private let uploader: ReportUploader?
  /// `configuration.transportSecurity`, indexed; nil when it is off.
  private let transportSecurity: IndexedTransportSecurity?
  #if os(Linux) && !CNPINNING_APPLE_CHECK
  private let trustStore: TrustStore
  private let proxies: ProxyRules
  /// What HTTPS proxies are verified against, one store per distinct trust.
  private let proxyTrustStores: [(trust: CNTrust, store: TrustStore)]
  private let loop: CurlMultiLoop
  #else
  private let transport: URLSessionTransport
  #endif

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
  /// Pin failures are reported to the manager's failure-report handler and, when the host's
  /// configuration has a `reportURI`, POSTed there (identical reports at most once a day).
  public convenience init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration = .default) throws {
    try self.init(manager: manager, configuration: configuration, reportsFailures: true)
  }

  init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration, reportsFailures: Bool) throws {
    self.uploader = reportsFailures ? ReportUploader(manager: manager, configuration: configuration) : nil
    self.configuration = configuration
    self.transportSecurity = try configuration.transportSecurity.indexed()
    self.state = Locked(State(manager: manager, observer: nil))
    #if os(Linux) && !CNPINNING_APPLE_CHECK
    self.trustStore = try TrustStore(configuration.trust)
    let proxies = try ProxyRules(
      configuration.proxy, noProxy: configuration.noProxy, environment: ProxyRules.processEnvironment)
    self.proxies = proxies
    self.proxyTrustStores = try proxies.proxyTrusts.map { trust throws(CNPinnedSessionError) in (trust, try TrustStore(trust)) }
    self.loop = try CurlMultiLoop(resolve: configuration.resolve)
    #else
    // URLSession takes the system's proxy settings (or none); an explicit proxy would need
    // platform-specific keys, so it is refused rather than silently bypassed.
    switch configuration.proxy {
    case .http, .https:
      throw CNPinnedSessionError.unsupportedRequest(
        "an explicit proxy needs the Linux transport; on Apple platforms use .environment (the system's proxy settings) or .direct"
      )
    case .direct, .environment:
      self.transport = URLSessionTransport(configuration: configuration)
    }
    #endif
  }

  deinit {
    #if os(Linux) && !CNPINNING_APPLE_CHECK
    loop.shutdown()
    #else
    transport.invalidate()
    #endif
  }

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

  /// Receives, for every request, the nanoseconds from handing it to the network thread until
  /// its response (or error) came back: the loop's share of the request's latency, free of the
  /// requesting task's scheduling. For tests; nil stops it. (Linux only.)
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
  package var threadName: String {
    #if os(Linux) && !CNPINNING_APPLE_CHECK
    loop.name
    #else
    ""
    #endif
  }

  /// Fails every request in flight with `sessionInvalidated` and refuses new ones.
  public func invalidateAndCancel() {
    state.withLock { $0.invalidated = true }
    #if os(Linux) && !CNPINNING_APPLE_CHECK
    loop.shutdown()
    #else
    transport.invalidate()
    #endif
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
    guard let url = request.url, let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
      scheme == "https" || scheme == "http"
    else { throw .invalidURL(request.url?.absoluteString ?? "") }
    // Parsed once; the pins and the transport-security exceptions are looked up with it. A host
    // that cannot be parsed (127.1, 2130706433, …) is refused here, saying why, not left to fail
    // somewhere in OpenSSL.
    let name: HostName
    switch HostName.parse(host) {
    case .success(let parsed): name = parsed
    case .failure(let invalid): throw .invalidHost(host: host, reason: invalid.reason)
    }
    let isPinned = manager?.configuration(for: name) != nil
    if !isPinned && configuration.unpinnedHosts == .deny { throw .hostNotPinned(host: host) }
    if isPinned && scheme == "http" { throw .insecureConnectionToPinnedHost(host: host) }
    let requirements = transportSecurity?.requirements(for: name)
    if scheme == "http", let requirements, !requirements.rules.allowsInsecureHTTPLoads {
      throw .transportSecurity(.insecureHTTP(host: host))
    }
    #if os(Linux) && !CNPINNING_APPLE_CHECK
    let plan = try RequestPlan(
      request: request, configuration: configuration, withheld: withheld, cookies: Cookies.header(for: request, from: cookies),
      upload: upload, destination: destination, connectOnly: connectOnly, proxies: proxies)
    let policy = RequestPolicy(
      host: plan.host, hostName: name, port: plan.port, trust: ObjectIdentifier(trustStore), manager: manager,
      unpinnedHosts: configuration.unpinnedHosts, transportSecurity: requirements?.rules,
      transportSecurityIsException: requirements?.isException ?? false, wantsPresentedChain: observer != nil)
    let proxyTrustStore = plan.proxy.flatMap { route in
      route.isHTTPS ? proxyTrustStores.first { $0.trust == route.trust }?.store : nil
    }
    let transfer = CurlTransfer(
      plan: plan, policy: policy, trustStore: trustStore, proxyTrustStore: proxyTrustStore,
      minimumTLSVersion: policy.minimumTLSVersion(session: configuration.minimumTLSVersion), destination: destination,
      progress: progress)
    let report = await loop.perform(transfer)
    networkTimeObserver?(report.networkTime)
    emitEffects(
      of: report.judgements, host: policy.host, port: policy.port, hostName: policy.hostName, manager: policy.manager,
      observer: observer)
    // The response object is made here, in the requesting task, not on the network thread.
    let outcome = try report.result.get().outcome(for: plan)
    Cookies.store(from: outcome.response, of: request, in: cookies)
    return outcome
    #else
    // Apple platforms: ATS applies the transport-security rules; no handshake-only probe.
    _ = networkTimeObserver  // URLSession's own threads: nothing to time.
    guard !connectOnly else { throw .unsupportedRequest("probe (a handshake without a request) needs the Linux transport") }
    let judgements = JudgementLog()
    let settings = TaskSettings(
      host: host, manager: manager, trust: configuration.trust, unpinnedHosts: configuration.unpinnedHosts,
      judgements: judgements)
    // Observer events and reports for every challenge answered, whatever the request's outcome.
    defer {
      emitEffects(
        of: judgements.all, host: host, port: url.port ?? (scheme == "https" ? 443 : 80), hostName: name, manager: manager,
        observer: observer)
    }
    // The configuration's headers are added here, per hop, so that withheld credentials stay out.
    var merged = request
    for (name, value) in configuration.httpAdditionalHeaders
    where merged.value(forHTTPHeaderField: name) == nil && withheld?.contains(name) != true {
      merged.setValue(value, forHTTPHeaderField: name)
    }
    // The URLSession underneath keeps no cookies: the hop's come from `cookies`, as on Linux.
    if let cookie = Cookies.header(for: merged, from: cookies) { merged.setValue(cookie, forHTTPHeaderField: "Cookie") }
    // A streamed body is URLSession's to read.
    switch upload {
    case .file(let file):
      guard let stream = InputStream(url: file),
        let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
      else { throw .invalidArgument("cannot read the upload file \(file.path)") }
      merged.httpBodyStream = stream
      merged.setValue(String(size), forHTTPHeaderField: "Content-Length")
    case .stream(let body):
      merged.httpBodyStream = body.stream
    case nil:
      break
    }
    if case .file(let bodyFile) = destination {
      let response = try await transport.download(merged, settings: settings, to: bodyFile)
      Cookies.store(from: response, of: merged, in: cookies)
      if let progress {
        progress.start(expected: response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil)
        progress.add((try? bodyFile.offset()).map(Int.init) ?? 0)
      }
      return TransferOutcome(response: response, body: Data())
    }
    let (data, response) = try await transport.perform(merged, settings: settings)
    Cookies.store(from: response, of: merged, in: cookies)
    progress?.start(expected: response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil)
    progress?.add(data.count)
    if case .channel(let channel) = destination {
      // Here the body arrives whole (URLSession collects it), then is read as on Linux.
      channel.finish(whole: data)
      return TransferOutcome(response: response, body: Data())
    }
    return TransferOutcome(response: response, body: data)
    #endif
  }

  /// What follows a verdict, outside every C callback and every delegate: an observer event per
  /// judgement, and each pin failure (or expiry) reported to the manager's handler and, with a
  /// `reportURI`, uploaded. The same on every platform.
  private func emitEffects(
    of judgements: [Judgement], host: String, port: Int, hostName: HostName, manager: CNPinningManager?,
    observer: (@Sendable (CNConnectionEvent) -> Void)?
  ) {
    for judgement in judgements {
      observer?(
        CNConnectionEvent(
          host: host, port: port, isReusedConnection: judgement.use == .reused,
          isResumedSession: judgement.use == .resumed, verifiedChain: judgement.verifiedChain,
          presentedChain: judgement.presentedChain, pinning: judgement.pinning, error: judgement.rejection,
          tlsVersion: CNTLSVersion(rawValue: judgement.protocolVersion),
          httpVersion: judgement.applicationProtocol.map { $0 == "h2" ? "HTTP/2" : $0.uppercased() }))
      guard let uploader, let manager, let pinning = judgement.pinning,
        let report = manager.report(pinning, host: host, port: port, chain: judgement.verifiedChain)
      else { continue }
      if let target = manager.configuration(for: hostName)?.configuration.reportURI, manager.shouldUpload(report) {
        uploader.upload(report, to: target)
      }
    }
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

/// What one HTTP exchange produced (redirects are separate exchanges).
struct TransferOutcome: Sendable {
  let response: HTTPURLResponse
  let body: Data
}

extension Task where Success == Never, Failure == Never {
  static func checkCancellation(or error: CNPinnedSessionError) throws(CNPinnedSessionError) {
    if Task.isCancelled { throw error }
  }
}

/// A failed `probe`: the error, and what was seen of the connection before it failed (the
/// presented chain, for example) when the handshake got that far.
public struct CNProbeError: Error, Sendable, CustomStringConvertible {
  /// Why the probe failed.
  public let error: CNPinnedSessionError
  /// What was seen of the connection, when it got as far as a handshake.
  public let event: CNConnectionEvent?
  public var description: String { error.description }
}
