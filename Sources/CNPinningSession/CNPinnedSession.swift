@_spi(Locking) import CNPinning
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
/// <!-- snippet: Snippets/SessionInShort.swift -->
/// ```swift
/// let session = try CNPinnedSession(manager: try CNPinningManager(contentsOf: pinsURL))
/// let (data, response) = try await session.data(from: URL(string: "https://api.example.com/v1/items")!)
/// ```
public final class CNPinnedSession: Sendable {
  /// The pins, observers, checks and redirect loop; its transport is this platform's.
  package let engine: SessionEngine

  /// The settings the session was made with, its trust and unpinned-host rule included.
  public var configuration: CNPinnedSessionConfiguration { engine.configuration }

  /// Creates a session. `manager` nil pins nothing (every host is unpinned).
  ///
  /// Pin failures are reported to `configuration.failureReporter` and, when the host's
  /// configuration has a `reportURI`, POSTed there (identical reports at most once a day).
  public init(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration = .default) throws {
    engine = try SessionEngine(manager: manager, configuration: configuration, makeTransport: Self.platformTransport)
  }

  /// A session over another transport: for tests, Apple's transport on Linux over
  /// swift-corelibs-foundation's URLSession.
  package init(
    manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration, makeTransport: @escaping TransportMaker
  ) throws {
    engine = try SessionEngine(manager: manager, configuration: configuration, makeTransport: makeTransport)
  }

  /// The transport of this platform: libcurl and OpenSSL on Linux, URLSession on Apple platforms.
  package static let platformTransport: TransportMaker = { configuration throws(CNPinnedSessionError) in
    #if CNPINNING_LINUX_BACKEND
    try CurlTransport(configuration: configuration)
    #else
    try URLSessionTransport(configuration: configuration)
    #endif
  }

  /// The pins in force. Replacing the manager affects every request that starts afterwards,
  /// including requests that reuse an open connection: each is judged against the pins in force
  /// when it starts.
  public var manager: CNPinningManager? {
    get { engine.manager }
    set { engine.manager = newValue }
  }

  /// Receives one event per request judged (on a new, reused or resumed connection), from the
  /// requesting task after the verdict, before the request returns; never on the network thread.
  public func setConnectionObserver(_ observer: (@Sendable (CNConnectionEvent) -> Void)?) {
    engine.observer = observer
  }

  /// Returns once every failure-report upload this session started has ended, so that a test
  /// can tell "not uploaded" from "not uploaded yet" without sleeping.
  package func failureReportUploadsSettled() async { await engine.failureReportUploadsSettled() }

  /// Receives, for every request, the nanoseconds from handing it to libcurl's side (the network
  /// thread, or the requesting thread driving an idle session) until its response (or error)
  /// came back: the loop's share of the request's latency, free of the requesting task's
  /// scheduling. For tests; nil stops it. (Linux only.)
  package func setNetworkTimeObserver(_ observer: (@Sendable (_ nanoseconds: UInt64) -> Void)?) {
    engine.setNetworkTimeObserver(observer)
  }

  /// Loads `request`, following redirects (each hop is judged by its own host's pins).
  /// Throws ``CNPinnedSessionError``.
  public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    try await data(for: SessionRequest(request), progress: nil)
  }

  /// Loads `request` as ``data(for:)`` does, updating `progress` as the body arrives.
  public func data(for request: URLRequest, progress: CNTransferProgress) async throws -> (Data, HTTPURLResponse) {
    try await data(for: SessionRequest(request), progress: progress)
  }

  /// Loads `url` with a GET request.
  public func data(from url: URL) async throws -> (Data, HTTPURLResponse) {
    try await data(for: URLRequest(url: url))
  }

  /// Loads `request` into a temporary file, for bodies too large to hold in memory. The caller
  /// owns the file and should move or delete it.
  public func download(for request: URLRequest) async throws -> (URL, HTTPURLResponse) {
    try await download(for: SessionRequest(request), progress: nil)
  }

  /// Downloads `request` as ``download(for:)`` does, updating `progress` as the body arrives.
  public func download(for request: URLRequest, progress: CNTransferProgress) async throws -> (URL, HTTPURLResponse) {
    try await download(for: SessionRequest(request), progress: progress)
  }

  /// Downloads `url` with a GET request into a temporary file.
  public func download(from url: URL) async throws -> (URL, HTTPURLResponse) {
    try await download(for: URLRequest(url: url))
  }

  /// Connects to `host` and `port`, runs the TLS handshake with all of the session's checks, and
  /// disconnects without sending a request. Returns what was decided about the connection: the
  /// verified and presented chains and the pin result. Throws when the connection is refused,
  /// ``CNPinnedSessionError``, with what was seen of the connection (when the handshake got that
  /// far) in its `connection`.
  public func probe(host: String, port: Int = 443) async throws -> CNConnectionEvent {
    let authority = HostName.authority(host)
    guard (1...65535).contains(port), let url = URL(string: "https://\(authority):\(port)/") else {
      throw CNPinnedSessionError.invalidURL("https://\(authority):\(port)/")
    }
    let events = Locked<[CNConnectionEvent]>([])
    let outer = engine.observer
    let observer: @Sendable (CNConnectionEvent) -> Void = { event in
      events.withLock { $0.append(event) }
      outer?(event)
    }
    do {
      _ = try await engine.perform(SessionRequest(url: url), destination: .memory, observer: observer, connectOnly: true)
    } catch {
      throw CNPinnedSessionError(error.kind, connection: events.withLock { $0.last })
    }
    guard let event = events.withLock({ $0.last }) else {
      throw CNPinnedSessionError.untrustedChain(host: host, reason: "no TLS handshake took place")
    }
    return event
  }

  /// The session's network thread as a task executor, for callers whose handling of responses
  /// is short and who want it to run where the responses arrive:
  ///
  /// <!-- snippet: Snippets/NetworkThreadExecutor.swift -->
  /// ```swift
  /// func fetchAll(_ urls: [URL], with session: CNPinnedSession) async throws {
  ///   try await withTaskExecutorPreference(session.executor) {
  ///     for url in urls { try handle(try await session.data(from: url)) }
  ///   }
  /// }
  /// ```
  ///
  /// The preference moves code that is not isolated to an actor, as `fetchAll` is here: code on
  /// the main actor (or another actor with an executor of its own) stays there whatever the
  /// preference, and would cross to the network thread and back for every request.
  ///
  /// On Linux a task that prefers it runs on the thread that drives libcurl, between the
  /// loop's turns, so each of its requests is sent and resumed there, without handing the
  /// request to another thread and back. Everything such a task does between its awaits delays
  /// every transfer of the session: it must not block (no file or network I/O of its own, no
  /// semaphores or locks held long, no `Thread.sleep`, no long computation). After
  /// ``invalidateAndCancel()`` (or the session's end) its jobs run on Dispatch's shared threads.
  /// On Apple platforms URLSession runs the network on threads of its own, and this is the
  /// global concurrent executor.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  public var executor: any TaskExecutor { engine.transport.executor }

  /// The name of the session's network thread (`CNPSession-N`), for diagnostics.
  package var threadName: String { engine.transport.threadName }

  /// How many transfers drove the idle session on their caller's thread rather than on the
  /// network thread (Linux), for tests of that path.
  package var borrowedTransfers: Int { engine.transport.borrowedTransfers }

  /// Fails every request in flight with `sessionInvalidated` and refuses new ones.
  public func invalidateAndCancel() {
    engine.invalidate()
  }

  /// ``data(for:)`` for a request in the session's own form, whose fields keep their order and
  /// repeats (what `cnpin get -H` sends).
  package func data(for request: SessionRequest, progress: CNTransferProgress?) async throws(CNPinnedSessionError)
    -> (Data, HTTPURLResponse)
  {
    let (outcome, _) = try await engine.exchange(request, into: BodyInMemory.self, progress: progress)
    return (outcome.body, outcome.response)
  }

  /// ``download(for:)`` for a request in the session's own form.
  package func download(for request: SessionRequest, progress: CNTransferProgress?) async throws(CNPinnedSessionError)
    -> (URL, HTTPURLResponse)
  {
    let (outcome, file) = try await engine.exchange(request, into: DownloadFile.self, progress: progress)
    return (file.url, outcome.response)
  }
}
