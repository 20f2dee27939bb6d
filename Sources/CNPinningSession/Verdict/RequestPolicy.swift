import CNPinning

/// The session's rules for one request, captured when the request starts.
package struct RequestPolicy: Sendable {
  /// The canonical host (see ``RequestTarget``): what TLS verifies.
  package let host: String
  /// The host parsed for pin and exception lookups.
  package let hostName: HostName
  package let port: Int
  package let trust: ObjectIdentifier
  let manager: CNPinningManager?
  let unpinnedHosts: CNUnpinnedHostPolicy
  /// The transport-security rules for the host, its TLS floor included.
  package let rules: TransportRules
  /// Whether the observer wants the certificates the server presented.
  package let wantsPresentedChain: Bool
  /// How much of a verified chain the Web-PKI profile judges; nil: the profile is off.
  let webPKIScope: WebPKIProfile.Scope?

  package init(
    host: String, hostName: HostName, port: Int, trust: ObjectIdentifier, manager: CNPinningManager?,
    unpinnedHosts: CNUnpinnedHostPolicy, rules: TransportRules, wantsPresentedChain: Bool,
    webPKIScope: WebPKIProfile.Scope? = nil
  ) {
    self.host = host
    self.hostName = hostName
    self.port = port
    self.trust = trust
    self.manager = manager
    self.unpinnedHosts = unpinnedHosts
    self.rules = rules
    self.wantsPresentedChain = wantsPresentedChain
    self.webPKIScope = webPKIScope
  }

  /// The policy for `target`, under the host's transport-security `rules`.
  package init(
    target: RequestTarget, trust: ObjectIdentifier, manager: CNPinningManager?, unpinnedHosts: CNUnpinnedHostPolicy,
    rules: TransportRules, wantsPresentedChain: Bool, webPKIScope: WebPKIProfile.Scope?
  ) {
    self.init(
      host: target.host, hostName: target.hostName, port: target.port, trust: trust, manager: manager,
      unpinnedHosts: unpinnedHosts, rules: rules, wantsPresentedChain: wantsPresentedChain, webPKIScope: webPKIScope)
  }

  /// Whether a connection's verdict under `other` is the verdict under this policy: every field
  /// ``ConnectionVerdict`` reads is equal, and the manager is the same object.
  func judgesAlike(_ other: RequestPolicy) -> Bool {
    host == other.host && port == other.port && trust == other.trust && manager === other.manager
      && hostName == other.hostName && unpinnedHosts == other.unpinnedHosts && rules == other.rules
      && webPKIScope == other.webPKIScope
  }

  /// The lowest TLS version a handshake offers.
  package var minimumTLSVersion: CNTLSVersion { rules.minimumTLSVersion }
}
