// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real forward proxy on the loopback interface: Debian's `tinyproxy` (HTTP, with CONNECT
/// tunnels to any port), optionally behind `socat` terminating TLS with a test identity, which
/// makes it an HTTPS proxy. `stop()` (or releasing it) ends both. Needs `tinyproxy` and `socat`
/// (`make deps` installs Debian's tinyproxy-bin and socat).
// Unchecked Sendable: the processes are set in init and read only by stop, which the stopped flag (a lock) lets run once.
public final class TestProxy: @unchecked Sendable {
  /// Where clients connect: tinyproxy's port, or socat's TLS port for an HTTPS proxy.
  public let port: Int
  /// `http://127.0.0.1:PORT` or `https://…`.
  public var url: URL { URL(string: "\(tlsIdentity == nil ? "http" : "https")://127.0.0.1:\(port)")! }
  private let tlsIdentity: TestIdentity?
  private let directory: URL
  private var processes: [TestProcess] = []
  private let stopped = Locked(false)

  /// Starts tinyproxy (requiring `credentials` as Basic authentication when given) and, with
  /// `tlsIdentity`, socat in front of it serving that identity's chain. Waits at most 10 s.
  public static func start(credentials: (user: String, password: String)? = nil, tlsIdentity: TestIdentity? = nil) throws
    -> TestProxy
  {
    var lastError: Error?
    for _ in 0..<3 {  // a free port can be taken between choosing it and the proxy binding it
      do {
        return try TestProxy(credentials: credentials, tlsIdentity: tlsIdentity)
      } catch {
        lastError = error
      }
    }
    throw lastError!
  }

  private init(credentials: (user: String, password: String)?, tlsIdentity: TestIdentity?) throws {
    guard let tinyproxy = Self.executable("tinyproxy"), tlsIdentity == nil || Self.executable("socat") != nil else {
      throw TestKitError(message: "tinyproxy or socat is not installed (run `make deps`)")
    }
    self.tlsIdentity = tlsIdentity
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let proxyPort = try LoopbackPort.forChildProcess()
    var settings = [
      "Port \(proxyPort)", "Listen 127.0.0.1", "Timeout 30", "MaxClients 64", "LogLevel Connect", "Allow 127.0.0.1",
      "DisableViaHeader Yes", "LogFile \"\(directory.path)/tinyproxy.log\"",
    ]
    if let credentials { settings.append("BasicAuth \(credentials.user) \(credentials.password)") }
    let configuration = directory.appendingPathComponent("tinyproxy.conf")
    try (settings.joined(separator: "\n") + "\n").write(to: configuration, atomically: true, encoding: .utf8)
    let tlsPort = tlsIdentity == nil ? proxyPort : try LoopbackPort.forChildProcess()
    port = tlsPort
    try launch(tinyproxy, ["-d", "-c", configuration.path], waitingFor: proxyPort, name: "tinyproxy")
    guard let tlsIdentity else { return }
    let certificate = directory.appendingPathComponent("proxy.pem")
    try (tlsIdentity.chain.dropLast().map(\.pemEncoded).joined() + tlsIdentity.privateKey.pemEncoded)
      .write(to: certificate, atomically: true, encoding: .utf8)
    try launch(
      Self.executable("socat")!,
      [
        "OPENSSL-LISTEN:\(tlsPort),bind=127.0.0.1,reuseaddr,fork,verify=0,cert=\(certificate.path)", "TCP:127.0.0.1:\(proxyPort)",
      ],
      waitingFor: tlsPort, name: "socat")
  }

  deinit { stop() }

  /// The CONNECT requests tinyproxy received ("host:port"), in order, whether or not it
  /// opened the tunnel.
  public func connectRequests() -> [String] {
    let log = (try? String(contentsOf: directory.appendingPathComponent("tinyproxy.log"), encoding: .utf8)) ?? ""
    return log.split(separator: "\n").compactMap { line -> String? in
      guard let start = line.range(of: "): CONNECT ")?.upperBound else { return nil }
      return line[start...].split(separator: " ").first.map(String.init)
    }
  }

  /// Ends the proxy processes and removes their directory.
  public func stop() {
    let first = stopped.withLock { stopped -> Bool in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    for process in processes where process.isRunning {
      process.terminate(SIGKILL)
      process.waitForExit()
    }
    try? FileManager.default.removeItem(at: directory)
  }

  private func launch(_ executable: String, _ arguments: [String], waitingFor port: Int, name: String) throws {
    let errors = directory.appendingPathComponent("\(name).stderr")
    let process = try TestProcess.start(executable, arguments, errorLog: errors)
    processes.append(process)
    let deadline = Date().addingTimeInterval(10)
    while !LoopbackPort.accepts(port) {
      guard process.isRunning, Date() < deadline else {
        let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        stop()
        throw TestKitError(message: "\(name) did not start on port \(port): \(log)")
      }
      usleep(20_000)
    }
  }

  private static func executable(_ name: String) -> String? {
    ["/usr/bin/\(name)", "/usr/sbin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}
#endif
