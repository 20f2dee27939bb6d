import Foundation

/// Holds the pins of every configured host and judges verified certificate chains against them.
///
/// Immutable after creation, so one manager can be shared by any number of threads and sessions.
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

  private convenience init(document: CNPinningDocument, source: String?) {
    self.init(entries: document.entries, warnings: document.warnings)
    for warning in warnings { CNPinningLog.warn((source.map { "\($0): " } ?? "") + warning.description) }
  }

  private init(entries: [CNPinningDocument.Entry], warnings: [CNConfigurationWarning]) {
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
  }

  /// The configured domain and configuration that apply to `host`, or nil when it is not pinned
  /// (or is not a valid host name).
  public func configuration(for host: String) -> (domain: String, configuration: CNConfiguration)? {
    guard case .success(let name) = HostName.parse(host), let pinned = index.lookup(name) else { return nil }
    return (pinned.domain, pinned.configuration)
  }

  /// Judges a verified chain, given leaf first and ending with the trust anchor, for `host`.
  ///
  /// Call this only after the platform has verified the chain's trust and the host name; pinning
  /// adds to those checks and never replaces them.
  public func evaluate(host: String, chain: [CNCertificate]) -> CNPinningResult {
    let name: HostName
    switch HostName.parse(host) {
    case .success(let parsed): name = parsed
    case .failure(let invalid):
      return .rejected(
        CNPinningFailure(
          host: host, domain: nil, configuration: nil,
          presentedCommonNames: chain.reversed().map(\.commonName), reason: .invalidHost(invalid.reason)))
    }
    guard let pinned = index.lookup(name) else { return .notPinned }
    for (chainIndex, links) in pinned.leafFirstChains.enumerated() where Self.matches(links, chain) {
      return .accepted(
        CNPinningMatch(
          host: name.normalized, domain: pinned.domain, configuration: pinned.configuration,
          chainIndex: chainIndex))
    }
    return .rejected(Self.failure(host: name.normalized, pinned: pinned, chain: chain))
  }

  static func matches(_ leafFirstLinks: [CNChainLink], _ chain: [CNCertificate]) -> Bool {
    guard leafFirstLinks.count == chain.count else { return false }
    for (link, certificate) in zip(leafFirstLinks, chain) {
      guard let commonName = certificate.commonName, link.matches(commonName) else { return false }
    }
    return true
  }

  private static func failure(host: String, pinned: PinnedDomain, chain: [CNCertificate]) -> CNPinningFailure {
    let presented = chain.reversed().map(\.commonName)
    guard !chain.isEmpty else {
      return CNPinningFailure(
        host: host, domain: pinned.domain, configuration: pinned.configuration,
        presentedCommonNames: [], reason: .emptyChain)
    }
    let mismatches = pinned.leafFirstChains.map { links -> CNPinningFailure.ChainMismatch in
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
    return CNPinningFailure(
      host: host, domain: pinned.domain, configuration: pinned.configuration,
      presentedCommonNames: presented, reason: .noMatchingChain(mismatches))
  }
}
