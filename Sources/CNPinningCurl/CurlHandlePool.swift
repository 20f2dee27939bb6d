#if CNPINNING_LINUX_BACKEND
/// The idle easy handles of a session, kept for reuse: enough for a full fan-out on one HTTP/2
/// connection (128 streams, nginx's default limit), so that repeated bursts reuse their handles
/// instead of freeing and making most of them again each time. An idle handle that has been
/// used holds about 19 KB (libcurl 7.88), so 2.5 MB at most, and only after that many ran at
/// once. Touched only by the loop's driver.
struct CurlHandlePool {
  static let maximumIdleHandles = 128
  private var idle: [CurlEasy] = []

  /// An idle handle, else a new one sharing `share` and registering its sockets in `sockets`.
  mutating func take(share: UnsafeMutableRawPointer, sockets: OpaquePointer) throws(CurlSetupError) -> CurlEasy {
    if let reused = idle.popLast() { return reused }
    return try CurlEasy(share: share, sockets: sockets)
  }

  /// Takes a handle back from its job and keeps it for the next one.
  mutating func release(_ easy: CurlEasy) {
    easy.unbind()
    keep(easy)
  }

  /// Keeps an unbound handle, unless enough are kept already (it is then freed).
  mutating func keep(_ easy: CurlEasy) {
    if idle.count < Self.maximumIdleHandles { idle.append(easy) }
  }

  /// Frees every idle handle (before the share they use goes).
  mutating func removeAll() { idle = [] }
}
#endif
