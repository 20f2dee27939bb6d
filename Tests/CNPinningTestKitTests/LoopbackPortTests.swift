// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@testable import CNPinningTestKit
import Foundation
import Testing

@Suite("Loopback ports")
struct LoopbackPortTests {
  /// Ports for child processes (nginx, tinyproxy, socat) come from below the kernel's
  /// ephemeral range, so no server this process starts on port 0 and no outgoing connection
  /// can be given one between its choice and the child's bind; none is handed out twice.
  @Test func portsForChildProcessesStayOutOfTheEphemeralRange() throws {
    let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
    let ephemeralStart = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
    try #require(ephemeralStart >= 1024 + 1000, "no room below the ephemeral range here")
    let ports = try (0..<50).map { _ in try LoopbackPort.forChildProcess() }
    #expect(Set(ports).count == ports.count)
    #expect(ports.allSatisfy { (1024..<ephemeralStart).contains($0) }, "\(ports)")
    #expect(ports.allSatisfy { !LoopbackPort.accepts($0) })
  }

  /// A refused port refuses connections while the body runs.
  @Test func aRefusedPortRefuses() async throws {
    try await withRefusedPort { port in
      #expect(throws: TestKitError.self) { _ = try LoopbackPort.connect(port: port) }
    }
  }
}
#endif
