// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
