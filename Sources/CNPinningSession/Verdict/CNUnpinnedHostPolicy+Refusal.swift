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
