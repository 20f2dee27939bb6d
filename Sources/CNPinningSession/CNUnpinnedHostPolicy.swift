import CNPinning

/// What a session does with a host that has no pins.
public enum CNUnpinnedHostPolicy: Sendable, Equatable {
  /// Connect with normal TLS validation, as Apple's and Android's pinning do.
  case allow
  /// Refuse before connecting: only pinned hosts are reachable.
  case deny
}
