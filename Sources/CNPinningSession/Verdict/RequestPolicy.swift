import CNPinning

/// The session's rules for one request, captured when the request starts.
package struct RequestPolicy: Sendable {
  /// The canonical host (see `RequestTarget`): what TLS verifies.
  package let host: String
  /// The host parsed for pin and exception lookups.
  package let hostName: HostName
  package let port: Int
  package let trust: ObjectIdentifier
  let manager: CNPinningManager?
  let unpinnedHosts: CNUnpinnedHostPolicy
  /// The transport-security requirements for the host; nil when the policy is off.
  package let transportSecurity: CNTransportSecurityException?
  /// Whether those requirements come from an exception configured for the host.
  let transportSecurityIsException: Bool
  /// Whether the observer wants the certificates the server presented.
  package let wantsPresentedChain: Bool
  /// The lowest TLS version a handshake offers: the session's, unless a transport-security
  /// exception for the host sets its own. The one place the two settings meet.
  package let minimumTLSVersion: CNTLSVersion
  /// How much of a verified chain the Web-PKI profile judges; nil: the profile is off.
  let webPKIScope: WebPKIProfile.Scope?

  package init(
    host: String, hostName: HostName, port: Int, trust: ObjectIdentifier, manager: CNPinningManager?,
    unpinnedHosts: CNUnpinnedHostPolicy, transportSecurity: CNTransportSecurityException?,
    transportSecurityIsException: Bool, sessionMinimum: CNTLSVersion = .tls12, wantsPresentedChain: Bool,
    webPKIScope: WebPKIProfile.Scope? = nil
  ) {
    self.webPKIScope = webPKIScope
    self.host = host
    self.hostName = hostName
    self.port = port
    self.trust = trust
    self.manager = manager
    self.unpinnedHosts = unpinnedHosts
    self.transportSecurity = transportSecurity
    self.transportSecurityIsException = transportSecurityIsException
    self.wantsPresentedChain = wantsPresentedChain
    if transportSecurityIsException, let transportSecurity {
      minimumTLSVersion = transportSecurity.minimumTLSVersion
    } else {
      minimumTLSVersion = sessionMinimum
    }
  }

  /// The policy for `target`, with the host's transport-security `requirements`.
  package init(
    target: RequestTarget, trust: ObjectIdentifier, manager: CNPinningManager?, unpinnedHosts: CNUnpinnedHostPolicy,
    requirements: (rules: CNTransportSecurityException, isException: Bool)?, sessionMinimum: CNTLSVersion,
    wantsPresentedChain: Bool, webPKIScope: WebPKIProfile.Scope?
  ) {
    self.init(
      host: target.host, hostName: target.hostName, port: target.port, trust: trust, manager: manager,
      unpinnedHosts: unpinnedHosts, transportSecurity: requirements?.rules,
      transportSecurityIsException: requirements?.isException ?? false, sessionMinimum: sessionMinimum,
      wantsPresentedChain: wantsPresentedChain, webPKIScope: webPKIScope)
  }
}
