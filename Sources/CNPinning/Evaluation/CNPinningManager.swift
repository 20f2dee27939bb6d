import Foundation

/// Holds the pins of every configured host and judges verified certificate chains against them.
///
/// The app's pins never change after creation; an enterprise policy (when the manager has a
/// policy-signing key) is applied, refreshed and dropped atomically. One manager can be shared by
/// any number of threads and sessions.
public final class CNPinningManager: Sendable {
  /// A configured domain and its pins.
  struct PinnedDomain: Sendable {
    let domain: String
    let configuration: CNConfiguration
    /// Each chain's links leaf first, the order in which verified chains arrive.
    let leafFirstChains: [[CNChainLink]]
  }

  /// The configurations, keyed by normalised host name.
  public let configuration: [String: CNConfiguration]
  /// Remarks about the configuration that did not stop it from loading (for example a link
  /// without a type). Also sent to `CNPinningLog` when loaded from a file.
  public let warnings: [CNConfigurationWarning]
  private let index: HostIndex<PinnedDomain>
  /// Enterprise policy support; nil for a manager without a policy-signing key.
  let enterprise: EnterpriseSupport?

  /// The state of enterprise policy support.
  struct EnterpriseSupport: Sendable {
    let authenticationHost: HostName
    let key: CNPolicySigningKey
    let clockSkew: TimeInterval
    let policy = Locked<CNEnterprisePolicy?>(nil)
  }

  /// Creates a manager from configurations keyed by host name. Throws `CNConfigurationError`
  /// for an empty dictionary, an invalid host name, or two keys that name the same host.
  public convenience init(configuration: [String: CNConfiguration]) throws {
    self.init(document: try CNPinningDocument(configuration: configuration), source: nil)
  }

  /// Reads the configuration from an Info.plist-style property list (XML or binary, a whole
  /// Info.plist or just the `CNPinningManager` dictionary) or the same structure as JSON.
  public convenience init(contentsOf url: URL) throws {
    self.init(document: try CNPinningDocument(contentsOf: url), source: url.path)
  }

  /// Reads the configuration from the bytes of a property list or JSON document.
  /// `source` names the document in errors.
  public convenience init(data: Data, source: String? = nil) throws {
    self.init(document: try CNPinningDocument(data: data, source: source), source: source)
  }

  /// Uses a loaded document. Its warnings are sent to `CNPinningLog`.
  public convenience init(document: CNPinningDocument) {
    self.init(document: document, source: nil)
  }

  convenience init(document: CNPinningDocument, source: String?, enterprise: EnterpriseSupport? = nil) {
    self.init(entries: document.entries, warnings: document.warnings, enterprise: enterprise)
    for warning in warnings { CNPinningLog.warn((source.map { "\($0): " } ?? "") + warning.description) }
  }

  private init(entries: [CNPinningDocument.Entry], warnings: [CNConfigurationWarning], enterprise: EnterpriseSupport?) {
    var index = HostIndex<PinnedDomain>()
    var configuration: [String: CNConfiguration] = [:]
    configuration.reserveCapacity(entries.count)
    for entry in entries {
      let pinned = PinnedDomain(
        domain: entry.name.normalized, configuration: entry.configuration,
        leafFirstChains: entry.configuration.chains.map { $0.links.reversed() })
      index.insert(entry.name, includesSubdomains: entry.configuration.includesSubdomains, pinned)
      configuration[entry.name.normalized] = entry.configuration
    }
    self.index = index
    self.configuration = configuration
    self.warnings = warnings
    self.enterprise = enterprise
  }

  /// The configured domain and configuration that apply to `host`, or nil when it is not pinned
  /// (or is not a valid host name).
  public func configuration(for host: String) -> (domain: String, configuration: CNConfiguration)? {
    guard case .success(let name) = HostName.parse(host), let pinned = index.lookup(name) else { return nil }
    return (pinned.domain, pinned.configuration)
  }

  /// Judges a verified chain, given leaf first and ending with the trust anchor, for `host`, at
  /// `date` (now by default; it matters only for an enterprise policy's window).
  ///
  /// Call this only after the platform has verified the chain's trust and the host name; pinning
  /// adds to those checks and never replaces them. For a pinned host, the enterprise policy's
  /// chains (its entry for the host, else `"*"`) are tried before the app's own; the policy never
  /// pins a host the app does not pin, and never applies to the authentication host.
  public func evaluate(host: String, chain: [CNCertificate], at date: Date? = nil) -> CNPinningResult {
    let name: HostName
    switch HostName.parse(host) {
    case .success(let parsed): name = parsed
    case .failure(let invalid):
      return .rejected(
        CNPinningFailure(
          host: host, domain: nil, configuration: nil,
          presentedCommonNames: chain.reversed().map(\.commonName), reason: .invalidHost(invalid.reason),
          enterpriseMismatches: []))
    }
    guard let pinned = index.lookup(name) else { return .notPinned }
    let policy = enterpriseChains(for: name, at: date)
    if let policy {
      for (chainIndex, links) in policy.leafFirst.enumerated() where Self.matches(links, chain) {
        return .accepted(
          CNPinningMatch(
            host: name.normalized, domain: pinned.domain, configuration: pinned.configuration,
            source: .enterprisePolicy, chainIndex: chainIndex, chain: policy.chains[chainIndex]))
      }
    }
    for (chainIndex, links) in pinned.leafFirstChains.enumerated() where Self.matches(links, chain) {
      return .accepted(
        CNPinningMatch(
          host: name.normalized, domain: pinned.domain, configuration: pinned.configuration, source: .app,
          chainIndex: chainIndex, chain: pinned.configuration.chains[chainIndex]))
    }
    return .rejected(Self.failure(host: name.normalized, pinned: pinned, policy: policy, chain: chain))
  }

  /// The applied policy's chains for a host, when a policy applies to it at `date`.
  private func enterpriseChains(for host: HostName, at date: Date?) -> CNEnterprisePolicy.HostChains? {
    guard let enterprise, host != enterprise.authenticationHost,
      let policy = enterprise.policy.withLock({ $0 }), policy.isValid(at: date ?? Date(), clockSkew: enterprise.clockSkew)
    else { return nil }
    return policy.chains(for: host)
  }

  static func matches(_ leafFirstLinks: [CNChainLink], _ chain: [CNCertificate]) -> Bool {
    guard leafFirstLinks.count == chain.count else { return false }
    for (link, certificate) in zip(leafFirstLinks, chain) {
      guard let commonName = certificate.commonName, link.matches(commonName) else { return false }
    }
    return true
  }

  private static func failure(
    host: String, pinned: PinnedDomain, policy: CNEnterprisePolicy.HostChains?, chain: [CNCertificate]
  ) -> CNPinningFailure {
    guard !chain.isEmpty else {
      return CNPinningFailure(
        host: host, domain: pinned.domain, configuration: pinned.configuration,
        presentedCommonNames: [], reason: .emptyChain, enterpriseMismatches: [])
    }
    let enterprise = policy.map { policy in
      zip(policy.chains, policy.leafFirst).map { ($0, mismatch($1, chain)) }
    }
    return CNPinningFailure(
      host: host, domain: pinned.domain, configuration: pinned.configuration,
      presentedCommonNames: chain.reversed().map(\.commonName),
      reason: .noMatchingChain(pinned.leafFirstChains.map { mismatch($0, chain) }),
      enterpriseMismatches: enterprise ?? [])
  }

  /// Why leaf-first `links` do not match `chain`: the first failing link, from the leaf.
  private static func mismatch(_ links: [CNChainLink], _ chain: [CNCertificate]) -> CNPinningFailure.ChainMismatch {
    guard links.count == chain.count else {
      return .certificateCount(expected: links.count, actual: chain.count)
    }
    for (offset, (link, certificate)) in zip(links, chain).enumerated() {
      let position = chain.count - 1 - offset
      guard let commonName = certificate.commonName else {
        return .unreadableCommonName(position: position, link: link, problem: certificate.commonNameProblem!)
      }
      if !link.matches(commonName) {
        return .commonName(position: position, link: link, commonName: commonName)
      }
    }
    preconditionFailure("a chain reported as mismatching matched")
  }
}
