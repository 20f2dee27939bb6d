import CNPinning

/// What a session does with a host that has no pins.
public enum CNUnpinnedHostPolicy: Sendable, Equatable {
  /// Connect with normal TLS validation, as Apple's and Android's pinning do.
  case allow
  /// Refuse before connecting: only pinned hosts are reachable.
  case deny
}

extension CNUnpinnedHostPolicy {
  /// The one unpinned-host rule: why a request to `host`, which has no pins, is refused; nil
  /// when it may go ahead with normal trust. The session asks before connecting, the verdict
  /// again on the verified chain (the pins may have changed), and the challenge answer on Apple.
  package func refusal(host: String) -> CNPinnedSessionError? {
    switch self {
    case .allow: nil
    case .deny: .hostNotPinned(host: host)
    }
  }
}
