// The test kit is built on OpenSSL, which only the Linux build links.
#if os(Linux) && !CNPINNING_APPLE_CHECK
// The C modules bring glibc's socket types (SOCK_STREAM), which Glibc's module map misses in
// release builds.
internal import CNPinningShims
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for the servers the test kit starts as processes (nginx, proxies).
enum LoopbackPort {
  /// A port nothing listens on right now.
  static func free() throws -> Int {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw TestKitError(message: "socket() failed: errno \(errno)") }
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
    }
    guard bound == 0 else { throw TestKitError(message: "bind() failed: errno \(errno)") }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Whether something accepts TCP connections on the loopback port.
  static func accepts(_ port: Int) -> Bool {
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard client >= 0 else { return false }
    defer { close(client) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
  }
}
#endif
