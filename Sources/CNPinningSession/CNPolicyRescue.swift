@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The way out of a lockout without an app update: fetches a signed enterprise policy from a URL
/// the app names and applies it to the manager, on demand and on a schedule, keeping it in a
/// `CNPolicyStore` so that the rescue survives a restart (restore it at launch with
/// `CNPinningManager.restoreEnterprisePolicy(from:)`).
///
/// The fetch goes through a session of its own with normal trust and host-name checks and none
/// of the app's pins: a CA switch that locked the app's pinned hosts out must not lock out their
/// rescue, and the policy is authenticated by its signature, not by the connection. So the URL
/// may be on any host, a CDN or object store included. What may apply is decided as for every
/// policy: the app's policy-signing key, the policy's window, and the anti-rollback mark (an
/// older policy, or the same `iat` with other content, is refused; the policy applied already is
/// taken as nothing new).
public final class CNPolicyRescue: Sendable {
  /// Where the signed policy is fetched from (https).
  public let url: URL
  private let manager: CNPinningManager
  private let store: CNPolicyStore?
  private let session: CNPinnedSession
  private let schedule = Locked<Task<Void, Never>?>(nil)

  /// A rescue for `manager` (which must have a policy-signing key) from `url`. `configuration`'s
  /// trust, proxy and timeouts apply to the fetch; pins never do, any host is allowed, and a
  /// response larger than a policy can be is refused. Throws `invalidURL` for a URL that is not
  /// https and `CNPolicyError.noSigningKey` for a manager that cannot verify policies.
  public init(
    manager: CNPinningManager, url: URL, store: CNPolicyStore? = nil,
    configuration: CNPinnedSessionConfiguration = CNPinnedSessionConfiguration()
  ) throws {
    guard url.scheme?.lowercased() == "https", url.host != nil else {
      throw CNPinnedSessionError.invalidURL("\(url.absoluteString): a policy is fetched over https")
    }
    guard manager.acceptsPolicies else { throw CNPolicyError.noSigningKey }
    var fetching = configuration
    fetching.unpinnedHosts = .allow
    fetching.maximumResponseBodySize = CNEnterprisePolicy.maximumTokenSize
    self.url = url
    self.manager = manager
    self.store = store
    session = try CNPinnedSession(manager: nil, configuration: fetching)
  }

  deinit { schedule.withLock { $0?.cancel() } }

  /// Fetches the policy now and applies it (and keeps it in the store). Returns the policy
  /// applied, or nil when the server has nothing new: the policy applied already, or a 204, 304
  /// or 404. Throws `CNPinnedSessionError` when the fetch fails and `CNPolicyError` when the
  /// policy is refused; the pins in force are then unchanged.
  @discardableResult
  public func fetch() async throws -> CNEnterprisePolicy? {
    var request = URLRequest(url: url)
    request.setValue("application/jose", forHTTPHeaderField: "Accept")
    let (body, response) = try await session.data(for: request)
    switch response.statusCode {
    case 200: break
    case 204, 304, 404: return nil
    default:
      throw CNPinnedSessionError.invalidResponse(
        host: url.host ?? "", reason: "the policy URL answered \(response.statusCode), not 200 with a policy")
    }
    let token = Data(String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    if manager.enterprisePolicyToken == token { return nil }
    if manager.enterprisePolicy == nil {
      try manager.applyEnterprisePolicy(with: token)
    } else {
      try manager.refreshEnterprisePolicy(with: token)
    }
    if let store { try manager.saveEnterprisePolicy(to: store) }
    return manager.enterprisePolicy
  }

  /// Fetches now and then every `interval` (at least a minute, at most a year) until ``stop()``; a failed fetch is
  /// logged (`CNPinningLog`) and tried again at the next turn. A second `start` replaces the first.
  public func start(every interval: Duration) {
    let interval = max(BoundedInterval(interval) ?? .second, BoundedInterval(60)!).duration
    let task = Task { [weak self] in
      while !Task.isCancelled {
        do {
          try await self?.fetch()
        } catch {
          CNPinningLog.warn("the policy rescue from \(self?.url.absoluteString ?? "?") failed: \(error)")
        }
        try? await Task.sleep(for: interval)
      }
    }
    schedule.withLock { running in
      running?.cancel()
      running = task
    }
  }

  /// Stops the schedule `start` began.
  public func stop() {
    schedule.withLock { running in
      running?.cancel()
      running = nil
    }
  }
}
