import CNPinning

/// A session's transport-security policy with its exceptions indexed by host name, built once per
/// session (`CNTransportSecurity.indexed()`).
package struct IndexedTransportSecurity: Sendable {
  let policy: TransportRules
  let exceptions: HostIndex<CNTransportSecurityException>

  /// What applies to `host`: the policy's rules, as the exception that covers the host changes
  /// them (none when the policy is off).
  package func rules(for host: HostName) -> TransportRules {
    guard policy.isEnforced, let exception = exceptions.lookup(host) else { return policy }
    return exception.applied(to: policy)
  }
}
