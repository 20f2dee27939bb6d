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

/// Debian's nginx on the loopback interface, serving a test identity: the server many users
/// actually have, with keep-alive, HTTP/2 and TLS session tickets as nginx does them. Runs in the
/// foreground as one process with its files in a private directory; `stop()` (or releasing it)
/// ends it. Needs `nginx` (Debian's `nginx-light`, which `make deps` installs).
// Unchecked Sendable: the process and its files are set in init and released once by stop, behind a lock.
public final class NginxServer: @unchecked Sendable {
  /// What the server offers.
  public struct Configuration: Sendable {
    /// The certificates served, leaf first.
    public var chain: [CNCertificate]
    /// The leaf's private key, PEM-encoded.
    public var privateKeyPEM: String
    /// Keep connections open between requests (nginx's `keepalive_timeout 60s`, else `0`).
    public var keepAlive = true
    /// Offer HTTP/2 by ALPN as well as HTTP/1.1.
    public var http2 = true
    /// The body of every response (`200`, `text/plain`).
    public var body = "hello\n"
    /// Serve the server's `filesDirectory` under `/files/` (nginx's static module: Content-Length,
    /// sent with sendfile), where a PUT of any size stores a file (nginx's DAV module reads the
    /// whole body before it answers `201`): large bodies both ways.
    public var servesFiles = false
    /// Write one line per request (`$server_protocol $connection $connection_requests $uri
    /// $body_bytes_sent`) to `accessLog`.
    public var logsRequests = false

    public init(chain: [CNCertificate], privateKeyPEM: String) {
      self.chain = chain
      self.privateKeyPEM = privateKeyPEM
    }

    /// Serves `identity`'s certificate and its issuers below the root.
    public init(identity: TestIdentity) throws {
      self.init(chain: Array(identity.chain.dropLast()), privateKeyPEM: try identity.privateKey.pemEncoded)
    }
  }

  public let configuration: Configuration
  public let port: Int
  /// The private directory with the configuration, certificate, key and logs.
  public let directory: URL
  private let process: TestProcess
  private let stopped = Locked(false)

  /// `https://127.0.0.1:PORT`.
  public var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }
  /// The URL of `path`, reached through `hostName` (pair it with a resolve override).
  public func url(_ path: String = "/", hostName: String = "127.0.0.1") -> URL {
    URL(string: "https://\(hostName):\(port)\(path)")!
  }

  /// What `/files/` serves and where PUT stores, with `servesFiles`; removed with the server.
  public var filesDirectory: URL { directory.appendingPathComponent("files") }

  /// Where request lines go when `logsRequests` is on.
  public var accessLog: URL { directory.appendingPathComponent("access.log") }

  /// The nginx executable, or nil when it is not installed.
  public static var executable: String? {
    ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Starts nginx on a free loopback port and waits (at most 10 s) until it accepts connections.
  public static func start(_ configuration: Configuration) throws -> NginxServer {
    guard let executable else {
      throw TestKitError(message: "nginx is not installed (run `make deps`, which installs Debian's nginx-light)")
    }
    var lastError: Error?
    for _ in 0..<3 {  // a free port can be taken between choosing it and nginx binding it
      do {
        return try NginxServer(configuration, executable: executable, port: try LoopbackPort.forChildProcess())
      } catch {
        lastError = error
      }
    }
    throw lastError!
  }

  private init(_ configuration: Configuration, executable: String, port: Int) throws {
    self.configuration = configuration
    self.port = port
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    if configuration.servesFiles {
      try FileManager.default.createDirectory(at: directory.appendingPathComponent("files"), withIntermediateDirectories: true)
    }
    let chain = configuration.chain.map(\.pemEncoded).joined()
    try chain.write(to: directory.appendingPathComponent("chain.pem"), atomically: true, encoding: .utf8)
    try configuration.privateKeyPEM.write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
    try Self.configurationText(configuration, directory: directory.path, port: port)
      .write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)

    process = try TestProcess.start(
      executable, ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path],
      errorLog: directory.appendingPathComponent("stderr.log"))
    let deadline = Date().addingTimeInterval(10)
    while !LoopbackPort.accepts(port) {
      guard process.isRunning, Date() < deadline else {
        stop()
        let log = (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
        throw TestKitError(message: "nginx did not start on port \(port): \(log)")
      }
      usleep(20_000)
    }
  }

  deinit { stop() }

  /// Ends nginx and removes its directory.
  public func stop() {
    let first = stopped.withLock { stopped -> Bool in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    if process.isRunning {
      // A single-process nginx keeps the signal mask it inherits, and threads that start
      // processes here block SIGTERM; it holds nothing worth a graceful stop.
      process.terminate(SIGKILL)
      process.waitForExit()
    }
    try? FileManager.default.removeItem(at: directory)
  }

  /// The lines of the access log (with `logsRequests`).
  public func loggedRequests() -> [String] {
    ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  private static func configurationText(_ configuration: Configuration, directory: String, port: Int) -> String {
    let body = configuration.body.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
    let files =
      configuration.servesFiles
      ? "\n      location /files/ { alias \(directory)/files/; dav_methods PUT; client_max_body_size 0; }" : ""
    return """
      daemon off;
      master_process off;
      worker_processes 1;
      pid \(directory)/nginx.pid;
      error_log \(directory)/error.log warn;
      events { worker_connections 1024; }
      http {
        default_type text/plain;
        client_body_temp_path \(directory)/body;
        proxy_temp_path \(directory)/proxy;
        fastcgi_temp_path \(directory)/fastcgi;
        uwsgi_temp_path \(directory)/uwsgi;
        scgi_temp_path \(directory)/scgi;
        log_format requests '$server_protocol $connection $connection_requests $uri $body_bytes_sent';
        access_log \(configuration.logsRequests ? "\(directory)/access.log requests" : "off");
        keepalive_timeout \(configuration.keepAlive ? "60s" : "0");
        keepalive_requests 1000000;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:TLS:1m;
        ssl_session_tickets on;
        server {
          listen 127.0.0.1:\(port) ssl\(configuration.http2 ? " http2" : "");
          ssl_certificate \(directory)/chain.pem;
          ssl_certificate_key \(directory)/key.pem;
          location / { return 200 "\(body)"; }\(files)
        }
      }

      """
  }
}
#endif
