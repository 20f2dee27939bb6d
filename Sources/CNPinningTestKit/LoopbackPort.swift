// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
// The C modules bring glibc's socket types (SOCK_STREAM), which Glibc's module map misses in
// release builds.
internal import CNPinningShims
@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for the servers the test kit starts as processes (nginx, proxies).
enum LoopbackPort {
  /// A port for a server the test kit starts as a process (which binds it later): one that can
  /// be bound now, below the kernel's ephemeral range and never handed out twice by this
  /// process. A port the kernel picked (bind to port 0) could be picked again, between this
  /// choice and the child's bind, for a server any other test starts in this process, or as the
  /// local port of a connection; that server would then answer in the child's place.
  static func forChildProcess() throws -> Int {
    try nextChildPort.withLock { next in
      let range = childPortRange
      guard range.count >= 1000 else {  // no room below the ephemeral range: the kernel's choice
        let (socket, port) = try boundSocket()
        close(socket)
        return port
      }
      var candidate = next ?? range.lowerBound + Int(getpid()) % range.count  // runs side by side spread out
      for _ in 0..<range.count {
        let port = candidate
        candidate = candidate + 1 == range.upperBound ? range.lowerBound : candidate + 1
        if canBind(port) {
          next = candidate
          return port
        }
      }
      throw TestKitError(message: "no loopback port free in \(range)")
    }
  }

  private static let nextChildPort = Locked<Int?>(nil)

  /// Up to 12,000 ports below the start of `ip_local_port_range` (32768 on Debian), from 1024.
  private static let childPortRange: Range<Int> = {
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let ephemeralStart = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
    return max(1024, ephemeralStart - 12_000)..<max(1024, ephemeralStart)
  }()

  /// Whether a listener could bind 127.0.0.1:`port` now (with SO_REUSEADDR, as servers do).
  private static func canBind(_ port: Int) -> Bool {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard probe >= 0 else { return false }
    defer { close(probe) }
    var on: Int32 = 1
    setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
  }

  /// A TCP socket bound to 127.0.0.1 on a port the kernel picked, and that port.
  static func boundSocket() throws -> (socket: Int32, port: Int) {
    let bound = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard bound >= 0 else { throw TestKitError(message: "socket() failed: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(bound, $0, length) }
    }
    guard result == 0 else {
      close(bound)
      throw TestKitError(message: "bind() failed: errno \(errno)")
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(bound, $0, &length) }
    }
    return (bound, Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Accepts connections on `listener` until `isStopped` (looked at every 50 ms). `admit` takes
  /// each new socket or refuses it (the socket is closed and the loop ends); an admitted one is
  /// served by `serve` on a thread of its own, entered in `threads`, then closed.
  static func acceptConnections(
    on listener: Int32, threads: DispatchGroup, isStopped: () -> Bool, admit: (Int32) -> Bool,
    serve: @escaping @Sendable (Int32) -> Void
  ) {
    while !isStopped() {
      var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let client = accept(listener, nil, nil)
      guard client >= 0 else { continue }
      guard admit(client) else {
        close(client)
        break
      }
      threads.enter()
      Thread {
        serve(client)
        close(client)
        threads.leave()
      }.start()
    }
  }

  /// Whether something accepts TCP connections on the loopback port.
  static func accepts(_ port: Int) -> Bool {
    guard let client = try? connect(port: port) else { return false }
    close(client)
    return true
  }

  /// A socket connected to 127.0.0.1:`port`.
  static func connect(port: Int) throws -> Int32 {
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard client >= 0 else { throw TestKitError(message: "socket() failed: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(client)
      throw TestKitError(message: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
    }
    return client
  }

  /// A listening socket on an ephemeral loopback port, and the port.
  static func listen(on address: LocalTLSServer.Address = .ipv4Loopback) throws -> (Int32, Int) {
    let family = address == .ipv4Loopback ? AF_INET : AF_INET6
    let listener = socket(family, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw TestKitError(message: "socket() failed: errno \(errno)") }
    var yes: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var storage = sockaddr_storage()
    var length: socklen_t
    if family == AF_INET {
      var ipv4 = sockaddr_in()
      ipv4.sin_family = sa_family_t(AF_INET)
      ipv4.sin_addr.s_addr = inet_addr("127.0.0.1")
      length = socklen_t(MemoryLayout<sockaddr_in>.size)
      withUnsafeBytes(of: ipv4) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
    } else {
      var ipv6 = sockaddr_in6()
      ipv6.sin6_family = sa_family_t(AF_INET6)
      ipv6.sin6_addr = in6addr_loopback
      length = socklen_t(MemoryLayout<sockaddr_in6>.size)
      withUnsafeBytes(of: ipv6) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
    }
    let bound = withUnsafePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
    }
    guard bound == 0, Glibc.listen(listener, 128) == 0 else {
      close(listener)
      throw TestKitError(message: "cannot listen on \(address.text): errno \(errno)")
    }
    var actual = sockaddr_storage()
    var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &actualLength) }
    }
    let port: UInt16 = withUnsafeBytes(of: actual) { raw in
      family == AF_INET ? raw.load(fromByteOffset: 2, as: UInt16.self) : raw.load(fromByteOffset: 2, as: UInt16.self)
    }
    return (listener, Int(UInt16(bigEndian: port)))
  }

}

/// Runs `body` with a loopback port (127.0.0.1) that refuses connections until `body` returns:
/// a socket bound to it that never listens, so Linux answers each connection attempt with a
/// reset, and no server started meanwhile can take the port. (A stopped server's port can go to
/// the next server any test starts, which then answers in its place.)
@discardableResult
public func withRefusedPort<T>(_ body: (Int) async throws -> T) async throws -> T {
  let (socket, port) = try LoopbackPort.boundSocket()
  defer { close(socket) }
  return try await body(port)
}
#endif
