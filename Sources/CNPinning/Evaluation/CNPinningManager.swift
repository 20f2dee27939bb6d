import Foundation

/// Holds the pins of every configured host and judges verified certificate chains against them.
///
/// The app's pins never change after creation; an enterprise policy (when the manager has a
/// policy-signing key) is applied, refreshed and dropped atomically. One manager can be shared by
/// any number of threads and sessions.
public final class CNPinningManager: Sendable {
  /// A configured domain and its pins: a reference, so that a lookup (one a request, on the
  /// network thread) hands it over without copying the configuration's fields.
  final class PinnedDomain: Sendable {
    let domain: String
    let configuration: CNConfiguration

    init(domain: String, configuration: CNConfiguration) {
      self.domain = domain
      self.configuration = configuration
    }
  }

  /// The pinned domains' configurations, keyed by normalised host name (the `configuration`
  /// the manager was made with). `configuration(for:)` finds the one that applies to a host.
  public let pinnedDomains: [String: CNConfiguration]
  /// Remarks about the configuration that did not stop it from loading (for example a link
  /// without a type). Also sent to ``CNPinningLog`` when loaded from a file.
  public let warnings: [CNConfigurationWarning]
  private let index: HostIndex<PinnedDomain>
  /// Every host's `expirationDate`, sorted: the moments at which the pins in force change.
  let expiryDates: [Date]
  /// Enterprise policy support; nil for a manager without a policy-signing key.
  let enterprise: EnterpriseSupport?
  /// The challenges `decide` refused lately, for `refusal(explaining:)`.
  let recentRefusals = RecentRefusals()

  /// The state of enterprise policy support.
  struct EnterpriseSupport: Sendable {
    let authenticationHost: HostName
    let key: CNPolicySigningKey
    let clockSkew: TimeInterval
    /// The audience a policy must name (`aud`); nil: it must name none.
    let audience: String?
    /// The applied policy and the anti-rollback mark, changed together.
    let state = Locked<EnterpriseState>(EnterpriseState())
  }

  struct EnterpriseState: Sendable {
    var policy: CNEnterprisePolicy? {
      didSet { changes += 1 }
    }
    var highWaterMark: CNPolicyHighWaterMark?
    /// The applied policy as signed (whitespace around it trimmed), to keep on disk.
    var token: Data?
    /// How many times `policy` was set (see ``PolicyGeneration``).
    var changes: UInt64 = 0
    /// The store last restored from or saved to: where `signOut` keeps its mark.
    var store: CNPolicyStore?
    /// Why the mark is unknown (the store existed but could not be read at restore): every
    /// policy is refused with it until a restore reads the store.
    var markUnknown: CNPolicyError?
  }

  /// Creates a manager from configurations keyed by host name, accepting enterprise policies
  /// when `enterprise` is given. Throws ``CNConfigurationError`` for an empty dictionary, an
  /// invalid host name, or two keys that name the same host.
  public convenience init(configuration: [String: CNConfiguration], enterprise: CNEnterpriseOptions? = nil) throws {
    self.init(document: try CNPinningDocument(configuration: configuration), enterprise: enterprise)
  }

  /// Reads the configuration from an Info.plist-style property list (XML or binary, a whole
  /// Info.plist or just the ``CNPinningManager`` dictionary) or the same structure as JSON.
  public convenience init(contentsOf url: URL, enterprise: CNEnterpriseOptions? = nil) throws {
    self.init(document: try CNPinningDocument(contentsOf: url), enterprise: enterprise)
  }

  /// Uses a loaded document (for bytes: `CNPinningDocument(data:source:)`), accepting
  /// enterprise policies when `enterprise` is given. The document's warnings are sent to
  /// ``CNPinningLog``, prefixed with where it was read from.
  public convenience init(document: CNPinningDocument, enterprise: CNEnterpriseOptions? = nil) {
    self.init(
      entries: document.entries, warnings: document.warnings,
      enterprise: enterprise.map {
        EnterpriseSupport(
          authenticationHost: $0.host, key: $0.policySigningKey, clockSkew: $0.clockSkew, audience: $0.audience)
      })
    for warning in warnings { CNPinningLog.warn((document.source.map { "\($0): " } ?? "") + warning.description) }
  }

  private init(entries: [CNPinningDocument.Entry], warnings: [CNConfigurationWarning], enterprise: EnterpriseSupport?) {
    var index = HostIndex<PinnedDomain>()
    var configuration: [String: CNConfiguration] = [:]
    configuration.reserveCapacity(entries.count)
    for entry in entries {
      let pinned = PinnedDomain(domain: entry.name.normalized, configuration: entry.configuration)
      index.insert(entry.name, includesSubdomains: entry.configuration.includesSubdomains, pinned)
      configuration[entry.name.normalized] = entry.configuration
    }
    self.index = index
    self.expiryDates = entries.compactMap(\.configuration.expirationDate).sorted()
    self.pinnedDomains = configuration
    self.warnings = warnings
    self.enterprise = enterprise
  }

  /// The configured domain and configuration that apply to `host`, or nil when it is not pinned
  /// (or is not a valid host name).
  public func configuration(for host: String) -> (domain: String, configuration: CNConfiguration)? {
    guard case .success(let name) = HostName.parse(host) else { return nil }
    return configuration(for: name)
  }

  /// ``configuration(for:)`` for a host name already parsed (transports parse once per request).
  package func configuration(for name: HostName) -> (domain: String, configuration: CNConfiguration)? {
    index.lookup(name).map { ($0.domain, $0.configuration) }
  }

  /// Whether `name` is pinned (has a configuration), without copying the configuration out.
  package func pins(_ name: HostName) -> Bool { index.lookup(name) != nil }

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
      return .rejected(.invalidHost(host, reason: invalid.reason, chain: CertificateChain(leafFirst: chain)))
    }
    return evaluate(name, chain: chain, at: date)
  }

  /// ``evaluate(host:chain:at:)`` for a host name already parsed.
  package func evaluate(_ name: HostName, chain certificates: [CNCertificate], at date: Date? = nil) -> CNPinningResult {
    guard let pinned = index.lookup(name) else { return .notPinned }
    let chain = CertificateChain(leafFirst: certificates)
    let configuration = pinned.configuration
    if let expiration = configuration.expirationDate, (date ?? Date()) >= expiration { return .notPinned }
    let policy = enterpriseChains(for: name, at: date)
    // A policy chain satisfies the chain pins only: key pins still apply along it, the policy's
    // own for the host, the host's, or none where the policy drops them in a signed field.
    var policyKeyFailure: CNPinningFailure?
    if let policy, let policyIndex = policy.chains.firstIndex(where: { $0.matches(chain) }) {
      let keys: KeyPinOutcome
      switch policy.keyPins {
      case .dropped: keys = .matched(KeyPinMatch(spkiPin: nil, certificatePin: nil))
      case .own(let pins): keys = Self.keyPins(spki: pins, certificate: [], certificates)
      case .app: keys = Self.keyPins(spki: configuration.spkiPins, certificate: configuration.certificatePins, certificates)
      }
      switch keys {
      case .matched(let match):
        return .accepted(
          CNPinningMatch(
            host: name.normalized, domain: pinned.domain, configuration: configuration, source: .enterprisePolicy,
            chainIndex: policyIndex, chain: policy.chains[policyIndex], verifiedLength: chain.count,
            spkiPin: match.spkiPin, certificatePin: match.certificatePin))
      case .refused(let reason):
        policyKeyFailure = failure(host: name.normalized, pinned: pinned, reason: reason, chain: chain)
      }
    }
    guard !chain.isEmpty else {
      return verdict(name, date, configuration, failure(host: name.normalized, pinned: pinned, reason: .emptyChain, chain: chain))
    }
    // Every kind of pin the host declares must be satisfied; within a kind one match suffices.
    var chainIndex: Int?
    if !configuration.chains.isEmpty {
      chainIndex = configuration.chains.firstIndex { $0.matches(chain) }
      guard chainIndex != nil else {
        // The policy's chain matched and only its key pins failed: that is the reason.
        if let policyKeyFailure { return verdict(name, date, configuration, policyKeyFailure) }
        let mismatches = configuration.chains.map { $0.mismatch(chain) }
        let enterprise = policy.map { policy in
          policy.chains.map { CNPinningFailure.EnterpriseMismatch(chain: $0, mismatch: $0.mismatch(chain)) }
        }
        return verdict(
          name, date, configuration,
          failure(
            host: name.normalized, pinned: pinned, reason: .noMatchingChain(mismatches), chain: chain,
            enterprise: enterprise ?? []))
      }
    }
    switch Self.keyPins(spki: configuration.spkiPins, certificate: configuration.certificatePins, certificates) {
    case .refused(let reason):
      return verdict(name, date, configuration, failure(host: name.normalized, pinned: pinned, reason: reason, chain: chain))
    case .matched(let match):
      return .accepted(
        CNPinningMatch(
          host: name.normalized, domain: pinned.domain, configuration: configuration, source: .app, chainIndex: chainIndex,
          chain: chainIndex.map { configuration.chains[$0] }, verifiedLength: chain.count, spkiPin: match.spkiPin,
          certificatePin: match.certificatePin))
    }
  }

  /// The key pins that matched (nil for a kind without pins).
  private struct KeyPinMatch {
    let spkiPin: CNSPKIPin?
    let certificatePin: CNCertificatePin?
  }

  /// Key pins satisfied, or the reason they are not.
  private enum KeyPinOutcome {
    case matched(KeyPinMatch)
    case refused(CNPinningFailure.Reason)
  }

  /// The SPKI and certificate pins against `certificates` (leaf first): the first match of each
  /// kind, or the reason the first kind without one fails.
  private static func keyPins(spki: [CNSPKIPin], certificate: [CNCertificatePin], _ certificates: [CNCertificate])
    -> KeyPinOutcome
  {
    let spkiPin: CNSPKIPin?
    switch match(spki, hashes: certificates.map(\.spkiSHA256Base64)) {
    case .success(let match): spkiPin = match
    case .failure(let unmatched): return .refused(.noMatchingSPKIPin(unmatched.group))
    }
    switch match(certificate, hashes: certificates.map { Data($0.sha256).base64EncodedString() }) {
    case .success(let match): return .matched(KeyPinMatch(spkiPin: spkiPin, certificatePin: match))
    case .failure(let unmatched): return .refused(.noMatchingCertificatePin(unmatched.group))
    }
  }

  /// Hash pins of one kind against the chain's hashes (leaf first), grouped by scope: each scope
  /// the host declares (leaf, ca, any) needs a match, as ATS requires a match among both its leaf
  /// and its CA identities when both are given. The first match (nil without pins), or the first
  /// group without one.
  private static func match<Pin: HashPin & Sendable>(_ pins: [Pin], hashes: @autoclosure () -> [String]) -> Result<
    Pin?, Unmatched<Pin>
  > {
    guard !pins.isEmpty else { return .success(nil) }
    let hashes = hashes()
    var first: Pin?
    for scope in CNPinScope.allCases {
      let group = pins.filter { $0.scope == scope }
      guard !group.isEmpty else { continue }
      guard let match = group.first(where: { matches($0.sha256Base64, $0.scope, hashes) }) else {
        return .failure(Unmatched(group: group))
      }
      first = first ?? match
    }
    return .success(first)
  }

  /// A scope group of hash pins none of which matches.
  private struct Unmatched<Pin: Sendable>: Error {
    let group: [Pin]
  }

  /// Whether `digest` is among the hashes (leaf first) of the certificates `scope` covers.
  private static func matches(_ digest: String, _ scope: CNPinScope, _ hashes: [String]) -> Bool {
    hashes.indices.contains { scope.includes(position: $0, chainLength: hashes.count) && hashes[$0] == digest }
  }

  /// A failure is a rejection, or only reported when the configuration does not enforce or the
  /// applied policy puts the host in report-only mode until a time still to come.
  private func verdict(_ host: HostName, _ date: Date?, _ configuration: CNConfiguration, _ failure: CNPinningFailure)
    -> CNPinningResult
  {
    guard configuration.enforce else { return .reportOnly(failure) }
    return policyReportsOnly(host, at: date) ? .reportOnly(failure) : .rejected(failure)
  }

  /// Whether the applied policy, valid at `date`, puts `host` in report-only mode then.
  private func policyReportsOnly(_ host: HostName, at date: Date?) -> Bool {
    let date = date ?? Date()
    guard let enterprise, host != enterprise.authenticationHost,
      let policy = enterprise.state.withLock({ $0.policy }), policy.isValid(at: date, clockSkew: enterprise.clockSkew)
    else { return false }
    return policy.isReportOnly(host, at: date)
  }

  /// The applied policy's chains for a host, when a policy applies to it at `date`.
  private func enterpriseChains(for host: HostName, at date: Date?) -> CNEnterprisePolicy.HostChains? {
    guard let enterprise, host != enterprise.authenticationHost,
      let policy = enterprise.state.withLock({ $0.policy }), policy.isValid(at: date ?? Date(), clockSkew: enterprise.clockSkew)
    else { return nil }
    return policy.chains(for: host)
  }

  private func failure(
    host: String, pinned: PinnedDomain, reason: CNPinningFailure.Reason, chain: CertificateChain,
    enterprise: [CNPinningFailure.EnterpriseMismatch] = []
  ) -> CNPinningFailure {
    let rootFirst = chain.rootFirst
    return CNPinningFailure(
      host: host, domain: pinned.domain, configuration: pinned.configuration,
      presentedCommonNames: rootFirst.map(\.commonName), presentedLeafAltNames: rootFirst.last?.subjectAltNameEntries ?? [],
      presentedSPKIHashes: rootFirst.map(\.spkiSHA256Base64),
      presentedCertificateHashes: rootFirst.map { Data($0.sha256).base64EncodedString() }, reason: reason,
      enterpriseMismatches: enterprise)
  }
}

extension CNPinningManager {
  /// The pinned domain `host` is a small edit away from when `host` itself is not pinned: a typo
  /// in the configuration (`api.locla`) or in the URL, either of which leaves requests unpinned
  /// without a word. nil when `host` is pinned or nothing is that close.
  public func nearestPinnedDomain(to host: String) -> String? {
    guard configuration(for: host) == nil else { return nil }
    return Suggestion.closest(to: host.lowercased(), among: pinnedDomains.keys.sorted())
  }

  /// Why an unpinned `host` is probably meant to be pinned, in words: a pinned domain a small edit
  /// away, or a parent domain pinned without `includesSubdomains`; nil when neither (or when
  /// `host` is pinned). The one home of the hint `cnpin lint --host` and `cnpin check` give.
  package func nearMiss(for host: String) -> String? {
    guard case .success(let name) = HostName.parse(host), configuration(for: name) == nil else { return nil }
    if let domain = nearestPinnedDomain(to: name.normalized) {
      return "the configuration pins \(domain): a typo in the configuration or the host?"
    }
    guard !name.isIPAddress else { return nil }
    var rest = name.normalized[...]
    while let dot = rest.firstIndex(of: ".") {
      rest = rest[rest.index(after: dot)...]
      if pinnedDomains[String(rest)]?.includesSubdomains == false {
        return "the configuration pins \(rest) without includesSubdomains, which does not cover its subdomains"
      }
    }
    return nil
  }
}
