@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a `CNPinnedSession` runs on (and, on Linux, each session of `URLSessionConfiguration.cnPinned`):
/// the pins and observers in force, the checks that need no network, the redirect loop and one
/// transport, which the public API on top chooses (``TransportMaker``).
package final class SessionEngine: Sendable {
  /// The settings the session was made with, its trust and unpinned-host rule included.
  package let configuration: CNPinnedSessionConfiguration
  private let state: Locked<State>
  /// Observer events, failure reports and uploads, after each hop.
  private let effects: ConnectionEffects
  /// ``configuration/transportSecurity``, indexed.
  private let transportSecurity: IndexedTransportSecurity
  /// libcurl and OpenSSL on Linux, URLSession on Apple platforms.
  package let transport: any HopTransport

  private struct State {
    var manager: CNPinningManager?
    var observer: (@Sendable (CNConnectionEvent) -> Void)?
    /// Receives each request's time on the network thread, for tests of the loop's latency.
    var networkTimeObserver: (@Sendable (_ nanoseconds: UInt64) -> Void)?
    /// Set by ``invalidateAndCancel``; every later request fails with ``sessionInvalidated``, on
    /// every platform, before it reaches a transport (an invalidated URLSession raises an
    /// Objective-C exception when asked for a task).
    var invalidated = false
    /// The last request URL checked, kept for the next request to the same URL.
    var lastTarget: RequestTarget?
  }

  /// An engine with `manager`'s pins over the transport `makeTransport` makes for
  /// `configuration`. With `reportsFailures`, pin failures are uploaded to a host's `reportURI`
  /// through an engine of the same kind (which itself reports nothing).
  package init(
    manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration, reportsFailures: Bool = true,
    makeTransport: @escaping TransportMaker
  ) throws(CNPinnedSessionError) {
    guard configuration.httpMaximumConnectionsPerHost >= 1 else {
      throw CNPinnedSessionError.invalidArgument(
        "httpMaximumConnectionsPerHost must be at least 1, not \(configuration.httpMaximumConnectionsPerHost)")
    }
    self.effects = ConnectionEffects(
      configuration: configuration, manager: manager, uploads: reportsFailures, makeTransport: makeTransport)
    self.configuration = configuration
    self.transportSecurity = try configuration.transportSecurity.indexed()
    self.state = Locked(State(manager: manager, observer: nil))
    self.transport = try makeTransport(configuration)
  }

  /// The one place a session's transport is stopped when the session goes (the network thread
  /// on Linux; the URLSession, which holds its delegate, on Apple platforms).
  deinit { transport.invalidate() }

  /// The pins in force; each request is judged against the pins in force when it starts.
  package var manager: CNPinningManager? {
    get { state.withLock { $0.manager } }
    set { state.withLock { $0.manager = newValue } }
  }

  /// Receives one event per request judged, from the requesting task after the verdict.
  package var observer: (@Sendable (CNConnectionEvent) -> Void)? {
    get { state.withLock { $0.observer } }
    set { state.withLock { $0.observer = newValue } }
  }

  /// Receives each request's nanoseconds on libcurl's side (Linux), for tests.
  package func setNetworkTimeObserver(_ observer: (@Sendable (_ nanoseconds: UInt64) -> Void)?) {
    state.withLock { $0.networkTimeObserver = observer }
  }

  /// Returns once every failure-report upload this engine started has ended.
  package func failureReportUploadsSettled() async { await effects.uploader?.settle() }

  /// Fails every request in flight with `sessionInvalidated` and refuses new ones.
  package func invalidate() {
    state.withLock { $0.invalidated = true }
    transport.invalidate()
  }

  /// Runs one request and its redirects, each hop's body into a new `Body` (in memory, a
  /// download's file, or a channel read as it arrives), and returns the last hop's outcome with
  /// its body; the bodies of redirects, and of a hop that fails, are discarded. The one redirect
  /// loop: every API of the session and the URLSession protocol goes through it.
  package nonisolated(nonsending) func exchange<Body: HopBody>(
    _ original: consuming SessionRequest, into _: Body.Type, progress: CNTransferProgress? = nil,
    cookies: CookieSource = .configuration
  ) async throws(CNPinnedSessionError) -> (TransferOutcome, Body) {
    // The request moves into the chain, not copied (consuming).
    let target = try target(of: original.url)
    var hops = RedirectChain(original, target: target, configuration: configuration, cookies: cookies)
    while true {
      try Task.checkCancellation(or: .cancelled)
      let body = try Body.make()
      let follows: Bool
      let outcome: TransferOutcome
      do {
        outcome = try await perform(
          hops.request, target: hops.target, destination: body.destination, withheld: hops.withheld,
          cookies: hops.cookies, progress: progress)
        try body.complete(host: hops.target.host)
        follows = try hops.followRedirect(after: outcome)
      } catch {
        await body.discard(after: error)
        throw error
      }
      guard follows else { return (outcome, body) }
      await body.discard()
    }
  }

  /// `url`, checked: the last URL's target when `url` is the same (a target depends on its URL
  /// alone, and checking one costs about 3,500 instructions, a fortieth of a request).
  private func target(of url: URL?) throws(CNPinnedSessionError) -> RequestTarget {
    if let url, let last = state.withLock({ $0.lastTarget }), last.url == url { return last }
    let target = try RequestTarget(url)
    state.withLock { $0.lastTarget = target }
    return target
  }

  /// One HTTP exchange, after the checks that need no network.
  /// `withheld`: credential headers that must not be sent (the configuration's included).
  /// `cookies`: where the hop's cookies come from and its response's go.
  /// `target`: the request's URL, checked (nil: checked here).
  package nonisolated(nonsending) func perform(
    _ request: consuming SessionRequest, target checked: RequestTarget? = nil, destination: BodyDestination,
    withheld: CredentialHeaders? = nil,
    cookies: HTTPCookieStorage? = nil, progress: CNTransferProgress? = nil,
    observer explicitObserver: (@Sendable (CNConnectionEvent) -> Void)? = nil, connectOnly: Bool = false
  ) async throws(CNPinnedSessionError) -> TransferOutcome {
    let (manager, sessionObserver, networkTimeObserver, invalidated) = state.withLock {
      ($0.manager, $0.observer, $0.networkTimeObserver, $0.invalidated)
    }
    guard !invalidated else { throw .sessionInvalidated }
    let observer = explicitObserver ?? sessionObserver
    // Checked and canonicalised once: the pins, the exceptions, the unpinned-host rule, TLS and
    // the transport all see the same host. One that cannot be parsed (127.1, 2130706433, …) is
    // refused here, saying why, not left to fail somewhere in OpenSSL.
    let target: RequestTarget
    if let checked { target = checked } else { target = try RequestTarget(request.url) }
    // A stated length that is not a number, or contradicts the body, is refused on every path.
    _ = try request.statedLength()
    let name = target.hostName
    let host = target.host
    let isPinned = manager?.pins(name) ?? false
    if !isPinned, let manager, let nearMiss = effects.reporter.nearMissWarning(for: host, pins: manager) {
      CNPinningLog.warn(nearMiss)
    }
    if !isPinned, let refusal = configuration.unpinnedHosts.refusal(host: host) { throw refusal }
    let rules = transportSecurity.rules(for: name)
    if !target.isHTTPS, let refusal = rules.refusal(forPlainHTTPTo: host, isPinned: isPinned) { throw refusal }
    let fields =
      connectOnly
      ? HopFields.none
      : HopFields(
        request, at: target, additional: configuration.httpAdditionalHeaders, withheld: withheld, cookies: cookies)
    let keepsCookies = request.handlesCookies
    let hop = Hop(
      request: consume request, target: target, fields: fields, manager: manager, rules: rules, destination: destination,
      progress: progress, wantsPresentedChain: observer != nil, connectOnly: connectOnly,
      effects: effects, observer: observer)
    let report = await transport.exchange(hop)
    if let networkTime = report.networkTime { networkTimeObserver?(networkTime) }
    hop.emit(report.judgements)
    let outcome = try report.outcome.get()
    if keepsCookies { Cookies.store(from: outcome, at: target, in: cookies) }
    return outcome
  }
}

extension Task where Success == Never, Failure == Never {
  /// Throws `error` when the current task is cancelled.
  package static func checkCancellation(or error: CNPinnedSessionError) throws(CNPinnedSessionError) {
    if Task.isCancelled { throw error }
  }
}
