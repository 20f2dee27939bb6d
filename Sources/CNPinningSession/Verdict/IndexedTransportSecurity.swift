import CNPinning

/// An enabled transport-security policy with its exceptions indexed by host name, built once per
/// session.
package struct IndexedTransportSecurity: Sendable {
  let exceptions: HostIndex<CNTransportSecurityException>

  /// What applies to `host`: the exception that covers it, else the policy's own rules.
  package func requirements(for host: HostName) -> (rules: CNTransportSecurityException, isException: Bool) {
    guard let exception = exceptions.lookup(host) else { return (CNTransportSecurityException(), false) }
    return (exception, true)
  }
}
