@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What URLSession's task metrics say about the connection a request used.
struct TransactionFacts: Sendable, Equatable {
  let isReusedConnection: Bool
  /// The TLS version (0x0304 is TLS 1.3), when known.
  let tlsVersion: UInt16?
  /// The ALPN protocol ("h2", "http/1.1"), when known.
  let applicationProtocol: String?
  /// The connection's addresses and ports, when the metrics carry them.
  let connection: ConnectionID?
  /// When the request began to go out on that connection, when known.
  let requestStart: Date?

  /// The facts of the last transaction (the one that produced the response); nil when there was none.
  init?(_ metrics: URLSessionTaskMetrics) {
    guard let last = metrics.transactionMetrics.last else { return nil }
    // Through a proxy or relay (iCloud Private Relay among them) the addresses are the proxy's,
    // and tasks to different hosts may share its transport connection: the origin is part of
    // the identity there (issue 53, M2). Without a host, the connection is not known.
    let origin = last.request.url.flatMap { url in
      url.host.map { HostName.authority($0, port: url.port ?? (url.scheme == "http" ? 80 : 443)) }
    }
    self.init(
      isReusedConnection: last.isReusedConnection, tlsVersion: last.negotiatedTLSProtocolVersion?.rawValue,
      applicationProtocol: last.networkProtocolName, requestStart: last.requestStartDate,
      connection: ConnectionID(
        local: last.localAddress, localPort: last.localPort, remote: last.remoteAddress, remotePort: last.remotePort,
        proxiedTo: last.isProxyConnection ? .some(origin) : .none))
  }

  init(
    isReusedConnection: Bool, tlsVersion: UInt16?, applicationProtocol: String?, requestStart: Date? = nil,
    connection: ConnectionID? = nil
  ) {
    self.isReusedConnection = isReusedConnection
    self.tlsVersion = tlsVersion
    self.applicationProtocol = applicationProtocol
    self.requestStart = requestStart
    self.connection = connection
  }
}

/// One connection, told apart by its two ends as the transaction metrics give them, and through
/// a proxy by the origin too: a relay's one transport connection carries a TLS session per
/// origin, so that one origin's verdict never stands for another's (issue 53, M2).
struct ConnectionID: Hashable, Sendable {
  let local: String
  let remote: String
  /// The origin's host and port when the connection is a proxy's; nil when direct.
  let origin: String?

  /// Nil unless all four parts are known, and through a proxy (`proxiedTo` given) the origin
  /// too. Ports are numbers on Apple platforms and text in swift-corelibs-foundation's metrics;
  /// either is taken.
  init?(
    local: String?, localPort: (any CustomStringConvertible)?, remote: String?, remotePort: (any CustomStringConvertible)?,
    proxiedTo origin: String?? = .none
  ) {
    guard let local, let localPort, let remote, let remotePort else { return nil }
    if case .some(nil) = origin { return nil }
    self.local = "\(local)|\(localPort)"
    self.remote = "\(remote)|\(remotePort)"
    self.origin = origin ?? nil
  }
}

/// A task's transaction facts as URLSession delivers them. Apple states no order between
/// `didFinishCollecting` and `didCompleteWithError`, and on some systems the metrics never come
/// (watchOS: Alamofire #3106), so whoever judges a task that has ended waits a bounded time for
/// its facts (issue 53, M7): reading them at completion refused every task without a challenge of
/// its own whenever they came second.
final class FactsArrival: Sendable {
  /// How long a task that has ended waits for its metrics.
  static let patience: Duration = .seconds(1)

  private struct State {
    var facts: TransactionFacts?
    var arrived = false
    var waiter: CheckedContinuation<TransactionFacts?, Never>?
  }
  private let state = Locked(State())

  /// The metrics arrived (`didFinishCollecting`); nil facts: they named no transaction.
  func deliver(_ facts: TransactionFacts?) {
    let waiter = state.withLock { state -> CheckedContinuation<TransactionFacts?, Never>? in
      state.facts = facts
      state.arrived = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: facts)
  }

  /// The facts, once they have arrived or `patience` has passed (then nil). One caller at a time.
  func facts(waitingUpTo patience: Duration = FactsArrival.patience) async -> TransactionFacts? {
    await withCheckedContinuation { continuation in
      let arrived = state.withLock { state -> TransactionFacts?? in
        if state.arrived { return .some(state.facts) }
        state.waiter = continuation
        return nil
      }
      if let arrived { return continuation.resume(returning: arrived) }
      Task {
        try? await Task.sleep(for: patience)
        let waiter = state.withLock { state -> CheckedContinuation<TransactionFacts?, Never>? in
          defer { state.waiter = nil }
          return state.waiter
        }
        waiter?.resume(returning: nil)
      }
    }
  }
}
