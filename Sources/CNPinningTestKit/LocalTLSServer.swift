// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real TLS server on the loopback interface, made with OpenSSL for tests: it serves a chain
/// from the test PKI on an ephemeral port, answers HTTP/1.1 with canned responses and records
/// every request and handshake. Every loop in it is bounded; `stop()` (or releasing the server)
/// closes its sockets and joins its threads.
public final class LocalTLSServer: Sendable {
  /// The threads hold the core, never this object, so releasing it stops them.
  private let core: LocalTLSServerCore

  public var configuration: Configuration { core.configuration }
  /// The port the server listens on.
  public var port: Int { core.port }
  /// Requests received, in order.
  public var requests: [Request] { core.requests }
  /// Completed TLS handshakes.
  public var handshakes: Int { core.handshakes }
  /// Handshakes that resumed an earlier session.
  public var resumedHandshakes: Int { core.resumedHandshakes }
  /// Handshakes the client (or the server) aborted.
  public var failedHandshakes: Int { core.failedHandshakes }
  /// ClientHellos that offered to resume a session (a TLS 1.3 pre_shared_key or a TLS 1.2
  /// session ticket), whether or not the server accepted.
  public var resumptionOffers: Int { core.resumptionOffers }
  /// Renegotiations the server started, and those the client went through with.
  public var renegotiationsRequested: Int { core.renegotiationsRequested }
  public var renegotiationsCompleted: Int { core.renegotiationsCompleted }
  /// TCP connections accepted.
  public var connections: Int { core.connections }
  /// Connections open now (accepted and not yet closed by the server).
  public var openConnections: Int { core.openConnections }
  /// How many times the configured fault was committed.
  public var faultsCommitted: Int { core.faultsCommitted }

  /// The loopback address as it appears in a URL host.
  public var host: String { configuration.address == .ipv4Loopback ? "127.0.0.1" : "[::1]" }
  /// `https://127.0.0.1:PORT` (or `https://[::1]:PORT`; `http` for a plain-HTTP server).
  public var baseURL: URL { URL(string: "\(scheme)://\(host):\(port)")! }

  /// The URL of `path` on this server, reached through `hostName` (pair it with a resolve override).
  public func url(_ path: String = "/", hostName: String? = nil) -> URL {
    URL(string: "\(scheme)://\(hostName ?? host):\(port)\(path)")!
  }

  private var scheme: String { configuration.behavior == .plainHTTP ? "http" : "https" }

  /// Starts a server; it runs until `stop()` or until it is released.
  public static func start(_ configuration: Configuration) throws -> LocalTLSServer {
    LocalTLSServer(core: try LocalTLSServerCore(configuration))
  }

  private init(core: LocalTLSServerCore) { self.core = core }

  /// Releasing the server stops it without waiting: its threads end on their own (they hold
  /// the core), so that a test releasing a server never blocks the thread it runs on.
  deinit { core.stop(waiting: false) }

  /// Stops accepting, closes open connections and waits for every server thread to end.
  public func stop() { core.stop(waiting: true) }

  /// Serves another identity (a renewed certificate, say) on the connections accepted from now
  /// on; open connections keep theirs. `configuration` still shows the identity it started with.
  public func replaceIdentity(_ identity: TestIdentity) throws { try core.replaceIdentity(identity) }
}

/// The server's sockets, TLS context, state and threads.
// Unchecked Sendable: mutable state is behind Locked; the listener and configuration are set in init; the threads join through the dispatch group.
final class LocalTLSServerCore: @unchecked Sendable {
  typealias Configuration = LocalTLSServer.Configuration
  typealias Request = LocalTLSServer.Request
  typealias Address = LocalTLSServer.Address

  let configuration: Configuration
  let port: Int
  private let listener: Int32
  /// The TLS context new connections use; `replaceIdentity` swaps it.
  private let currentContext: Locked<OpaquePointer>
  private let state = Locked(ServerState())
  private let threads = DispatchGroup()

  private struct ServerState {
    var stopped = false
    var requests: [Request] = []
    var handshakes = 0
    var resumedHandshakes = 0
    var failedHandshakes = 0
    var connections = 0
    var resumptionOffers = 0
    var renegotiationsRequested = 0
    var renegotiationsCompleted = 0
    var openSockets: Set<Int32> = []
    var faultsCommitted = 0
  }

  var requests: [Request] { state.withLock { $0.requests } }
  var handshakes: Int { state.withLock { $0.handshakes } }
  var resumedHandshakes: Int { state.withLock { $0.resumedHandshakes } }
  var failedHandshakes: Int { state.withLock { $0.failedHandshakes } }
  var connections: Int { state.withLock { $0.connections } }
  var faultsCommitted: Int { state.withLock { $0.faultsCommitted } }
  var openConnections: Int { state.withLock { $0.openSockets.count } }
  var resumptionOffers: Int { state.withLock { $0.resumptionOffers } }
  var renegotiationsRequested: Int { state.withLock { $0.renegotiationsRequested } }
  var renegotiationsCompleted: Int { state.withLock { $0.renegotiationsCompleted } }

  init(_ configuration: Configuration) throws {
    signal(SIGPIPE, SIG_IGN)  // a client that hangs up must not kill the test process
    self.configuration = configuration
    let context = try Self.makeContext(configuration)
    self.currentContext = Locked(context)
    do {
      (listener, port) = try LoopbackPort.listen(on: configuration.address)
    } catch {
      SSL_CTX_free(context)
      throw error
    }
    installHooks(context)
    threads.enter()
    let thread = Thread { [self] in
      ThreadName.setCurrent("TLSAccept-\(port)")  // Linux keeps 15 characters of a thread name
      acceptLoop()
      close(listener)
      threads.leave()
    }
    thread.start()
  }

  deinit {
    stop(waiting: false)
    SSL_CTX_free(currentContext.withLock { $0 })
  }

  /// Serves `identity` on connections accepted from now on (open ones keep theirs).
  func replaceIdentity(_ identity: TestIdentity) throws {
    var replacement = configuration
    replacement.identity = identity
    replacement.chain = nil
    let context = try Self.makeContext(replacement)
    installHooks(context)
    let previous = currentContext.withLock { current in
      defer { current = context }
      return current
    }
    SSL_CTX_free(previous)  // connections using it hold their own reference
  }

  /// Stops accepting and closes open connections; with `waiting`, returns once every server
  /// thread has ended (the accept thread closes the listening socket as it ends).
  func stop(waiting: Bool) {
    let sockets = state.withLock { state -> Set<Int32>? in
      guard !state.stopped else { return nil }
      state.stopped = true
      return state.openSockets
    }
    if let sockets {
      for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    }
    if waiting { _ = threads.wait(timeout: .now() + 15) }
  }

  private var isStopped: Bool { state.withLock { $0.stopped } }

  // MARK: - Accepting

  private func acceptLoop() {
    LoopbackPort.acceptConnections(
      on: listener, threads: threads, isStopped: { isStopped },
      admit: { client in
        state.withLock { state -> Bool in
          guard !state.stopped else { return false }
          state.connections += 1
          state.openSockets.insert(client)
          return true
        }
      },
      serve: { [self] client in
        ThreadName.setCurrent("TLSConn-\(port)")
        serve(client)
        state.withLock { _ = $0.openSockets.remove(client) }
      })
  }

  // MARK: - One connection

  private func serve(_ socket: Int32) {
    var timeout = timeval(tv_sec: configuration.idleTimeout, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    if configuration.behavior == .notTLS {
      let garbage = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\nthis is not TLS\n".utf8)
      _ = garbage.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      return
    }
    if configuration.behavior == .stallHandshake {
      var hello = [UInt8](repeating: 0, count: 4096)
      _ = recv(socket, &hello, hello.count, 0)
      sleepUnlessStopped(3600)
      return
    }
    if configuration.behavior == .plainHTTP {
      var connection = HTTPConnection(
        read: { buffer in recv(socket, buffer.baseAddress, buffer.count, 0) },
        write: { bytes in send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) })
      exchange(&connection, serverName: nil)
      return
    }
    if let fault = configuration.fault, fault.isInHandshake, claimFault() {
      var hello = [UInt8](repeating: 0, count: 4096)
      _ = recv(socket, &hello, hello.count, 0)
      if fault == .alertDuringHandshake {
        _ = ServerFault.handshakeFailureAlert.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      } else {
        Self.resetOnClose(socket)
      }
      return
    }
    guard let ssl = currentContext.withLock({ SSL_new($0) }) else { return }
    defer { SSL_free(ssl) }
    SSL_set_fd(ssl, socket)
    guard SSL_accept(ssl) == 1 else {
      ERR_clear_error()
      state.withLock { $0.failedHandshakes += 1 }
      return
    }
    let resumed = cnp_SSL_session_reused(ssl) == 1
    state.withLock { state in
      state.handshakes += 1
      if resumed { state.resumedHandshakes += 1 }
    }
    if configuration.behavior == .closeAfterHandshake { return }
    let serverName = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    let read: (UnsafeMutableRawBufferPointer) -> Int = { buffer in
      let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
      if count <= 0 { ERR_clear_error() }
      return Int(count)
    }
    let write: (UnsafeRawBufferPointer) -> Int = { bytes in
      let count = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
      if count <= 0 { ERR_clear_error() }
      return Int(count)
    }
    let ending: ServerFault.Ending
    if Self.selectedHTTP2(ssl) {
      var connection = HTTP2Connection(read: read, write: write)
      ending = exchangeHTTP2(
        &connection, serverName: serverName,
        hasInput: { milliseconds in
          guard SSL_pending(ssl) == 0 else { return true }
          var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
          return poll(&descriptor, 1, milliseconds) != 0
        })
    } else {
      var connection = HTTPConnection(read: read, write: write)
      var renegotiating = false
      ending = exchange(
        &connection, serverName: serverName, afterRequest: { renegotiationCheck(ssl, &renegotiating) },
        afterResponse: { renegotiate(ssl, &renegotiating) })
    }
    switch ending {
    case .clean, .keepServing: SSL_shutdown(ssl)
    case .withoutCloseNotify: break
    case .reset: Self.resetOnClose(socket)
    }
    ERR_clear_error()
  }

  /// Makes the coming `close` of `socket` send a TCP reset rather than a FIN.
  private static func resetOnClose(_ socket: Int32) {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
  }

  /// Whether the configured fault is to be committed now (it has been fewer than `faultCount` times).
  private func claimFault() -> Bool {
    state.withLock { state in
      guard state.faultsCommitted < configuration.faultCount else { return false }
      state.faultsCommitted += 1
      return true
    }
  }

  /// Sends a fault's bytes in place of an answer; returns how the connection is to end.
  private func commit(_ misbehaviour: ServerFault.Misbehaviour, send: ([UInt8]) -> Bool) -> ServerFault.Ending {
    guard send(misbehaviour.bytes) else { return .clean }
    if misbehaviour.stalls { sleepUnlessStopped(3600) }
    for _ in 0..<misbehaviour.trickle {
      sleepUnlessStopped(1)
      guard !isStopped, send(misbehaviour.trickleUnit) else { break }
    }
    return misbehaviour.ending
  }

  private static func selectedHTTP2(_ ssl: OpaquePointer) -> Bool {
    var selected: UnsafePointer<UInt8>?
    var length: UInt32 = 0
    SSL_get0_alpn_selected(ssl, &selected, &length)
    guard let selected, length == 2 else { return false }
    return selected[0] == UInt8(ascii: "h") && selected[1] == UInt8(ascii: "2")
  }

  /// Serves HTTP/2 on one connection: SETTINGS and PINGs acknowledged, request bodies taken (and
  /// their flow-control credit returned), each stream answered once it ends, the configured fault
  /// committed where it applies. Returns how the connection ends.
  /// `hasInput` waits at most the milliseconds given for the client to send something.
  private func exchangeHTTP2(
    _ connection: inout HTTP2Connection, serverName: String?, hasInput: (Int32) -> Bool
  ) -> ServerFault.Ending {
    typealias H2 = HTTP2Connection
    guard connection.readPreface() else { return .clean }
    let fault = configuration.fault.flatMap { $0.appliesToHTTP2 && !$0.isInHandshake ? $0 : nil }
    let withholdsCredit = fault == .noFlowControlCredit && claimFault()
    guard connection.send(H2.settings(withholdsCredit ? [(0x4, 0)] : [])) else { return .clean }
    var bodies: [UInt32: [UInt8]] = [:]
    var answered: [UInt32] = []
    /// The stream sent a body byte a second between frames (`oneBytePerSecond`), and how many are left.
    var trickle: (stream: UInt32, left: Int)?
    for _ in 0..<1_000_000 {
      if let (stream, left) = trickle, !connection.hasBufferedInput, !hasInput(1000) {
        guard !isStopped, connection.send(H2.data(stream: stream, [UInt8(ascii: "t")], endStream: false)) else { break }
        trickle = left > 1 ? (stream, left - 1) : nil
        continue
      }
      guard !isStopped, let frame = connection.readFrame() else { break }
      var ended: UInt32?
      switch H2.FrameType(rawValue: frame.type) {
      case .settings where frame.flags & H2.ack == 0:
        guard connection.send(H2.frame(.settings, flags: H2.ack)) else { return .clean }
      case .ping where frame.flags & H2.ack == 0:
        guard connection.send(H2.frame(.ping, flags: H2.ack, frame.payload)) else { return .clean }
      case .headers:
        bodies[frame.stream] = []
        if frame.flags & H2.endStream != 0 { ended = frame.stream }
      case .data:
        bodies[frame.stream, default: []] += frame.payload
        if !frame.payload.isEmpty, !withholdsCredit {
          let credit = H2.bigEndian(UInt32(frame.payload.count))
          guard connection.send(H2.frame(.windowUpdate, credit) + H2.frame(.windowUpdate, stream: frame.stream, credit))
          else { return .clean }
        }
        if frame.flags & H2.endStream != 0 { ended = frame.stream }
      case .goAway:
        return .clean
      default:
        break
      }
      guard let stream = ended else { continue }
      let request = Request(
        method: "", target: "", headers: [], body: Data(bodies.removeValue(forKey: stream) ?? []), serverName: serverName)
      if configuration.recordsRequests { state.withLock { $0.requests.append(request) } }
      if fault == .goAwayWithStreamsInFlight, let first = answered.first, answered.count == 1, claimFault() {
        // As servers shut down: GOAWAY, then read (and answer nothing) until the client closes.
        guard connection.send(H2.goAway(lastStream: first)) else { return .clean }
        for _ in 0..<100_000 {
          guard !isStopped, connection.readFrame() != nil else { break }
        }
        return .clean
      }
      if let fault, fault != .goAwayWithStreamsInFlight, fault != .noFlowControlCredit, claimFault() {
        let ending = commit(fault.http2Misbehaviour(stream: stream)) { connection.send($0) }
        guard ending == .keepServing else { return ending }
        if fault == .oneBytePerSecond { trickle = (stream, 3600) }
      } else {
        let answer =
          H2.headers(
            stream: stream, status: 200, fields: [("content-type", "text/plain"), ("content-length", "5")], endStream: false)
          + H2.data(stream: stream, Array("hello".utf8), endStream: true)
        guard connection.send(answer) else { return .clean }
      }
      answered.append(stream)
    }
    return .clean
  }

  /// Answers requests on one connection until it closes (at most `maximumRequestsPerConnection`),
  /// committing the configured fault where it applies; returns how the connection ends.
  @discardableResult
  private func exchange(
    _ connection: inout HTTPConnection, serverName: String?, afterRequest: () -> Void = {}, afterResponse: () -> Void = {}
  ) -> ServerFault.Ending {
    for index in 0..<configuration.maximumRequestsPerConnection {
      guard !isStopped, let request = connection.readRequest(serverName: serverName) else { break }
      afterRequest()
      if configuration.recordsRequests { state.withLock { $0.requests.append(request) } }
      if let fault = configuration.fault, fault.appliesToHTTP1, !fault.isInHandshake,
        (fault == .closeWhenReused) == (index == 1), claimFault()
      {
        if fault == .closeWhenReused { return .clean }
        let ending = commit(fault.misbehaviour) { connection.write(bytes: $0) }
        guard ending == .keepServing else { return ending }
        continue
      }
      let response = configuration.handler(request)  // runs on this server's thread
      if response.delay > 0 { sleepUnlessStopped(response.delay) }
      if let verbatim = response.verbatim {
        _ = connection.write(bytes: verbatim.bytes)
        return verbatim.closeNotify ? .clean : .withoutCloseNotify
      }
      let keepAlive = configuration.keepAlive && request.header("Connection")?.lowercased() != "close"
      guard connection.write(response, keepAlive: keepAlive), keepAlive else { break }
      afterResponse()
    }
    return .clean
  }

  /// Starts a renegotiation when the configuration asks for one: sends a HelloRequest and
  /// returns; the client's answer arrives with its next request.
  private func renegotiate(_ ssl: OpaquePointer, _ outstanding: inout Bool) {
    guard configuration.renegotiatesAfterEachResponse, SSL_renegotiate_pending(ssl) == 0 else { return }
    guard SSL_renegotiate(ssl) == 1, SSL_do_handshake(ssl) == 1 else {
      ERR_clear_error()
      return
    }
    state.withLock { $0.renegotiationsRequested += 1 }
    outstanding = true
  }

  /// Counts a renegotiation the client completed before sending the request just read.
  private func renegotiationCheck(_ ssl: OpaquePointer, _ outstanding: inout Bool) {
    guard outstanding, SSL_renegotiate_pending(ssl) == 0 else { return }
    outstanding = false
    state.withLock { $0.renegotiationsCompleted += 1 }
  }

  func recordResumptionOffer() {
    state.withLock { $0.resumptionOffers += 1 }
  }

  private func sleepUnlessStopped(_ seconds: TimeInterval) {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline && !isStopped { usleep(10_000) }
  }
}

#endif
