// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The result of running the `cnpin` binary.
struct Run {
  let status: Int32
  let stdout: String
  let stderr: String
}

/// The built `cnpin` executable, next to the test bundle.
let cnpinExecutable: URL = {
  let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  for candidate in [directory, directory.deletingLastPathComponent()] {
    let url = candidate.appendingPathComponent("cnpin")
    if FileManager.default.isExecutableFile(atPath: url.path) { return url }
  }
  return directory.appendingPathComponent("cnpin")
}()

/// Runs `cnpin` with `arguments` (and extra environment).
func cnpin(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
  try await run(cnpinExecutable.path, arguments, environment: environment)
}

/// Runs `executable` with `arguments` (and extra environment), for at most 120 s.
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
  var merged = ProcessInfo.processInfo.environment
  merged.merge(environment) { $1 }
  let output = try await TestProcess.run(executable, arguments, environment: merged, timeout: 120)
  if output.status == 128 + SIGKILL {
    Issue.record("\(executable) \(arguments.joined(separator: " ")) did not finish within 120 s")
  }
  return Run(
    status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
    stderr: String(decoding: output.stderr, as: UTF8.self))
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("cnpin-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// Writes `text` to `name` and returns its path.
  func file(_ name: String, _ text: String) throws -> String {
    let file = url.appendingPathComponent(name)
    try text.write(to: file, atomically: true, encoding: .utf8)
    return file.path
  }
}

/// A genuine and a rogue server for `api.test`, both CAs in one PEM file.
struct Fixture {
  let genuine: LocalTLSServer
  let rogue: LocalTLSServer
  let caFile: String
  let directory: TemporaryDirectory
  let root: TestIdentity
  /// The genuine server's chain, leaf first, with the root.
  let genuineChain: [CNCertificate]

  init(
    root rootName: String = "Test Root X1", intermediate: String = "R11", leaf: String = "api.test",
    genuineHandler: @escaping @Sendable (LocalTLSServer.Request) -> LocalTLSServer.Response = { _ in .text("hello") },
    address: LocalTLSServer.Address = .ipv4Loopback
  ) throws {
    directory = try TemporaryDirectory()
    let pki = try TestPKI(root: rootName, intermediate: intermediate, leaf: leaf, dnsNames: [leaf, "other.test"])
    root = pki.root
    genuineChain = pki.leaf.chain
    var setup = LocalTLSServer.Configuration(identity: pki.leaf, handler: genuineHandler)
    setup.address = address
    genuine = try LocalTLSServer.start(setup)
    let rogueRoot = try TestIdentity.root("Rogue Root CA")
    rogue = try LocalTLSServer.start(
      .init(identity: try rogueRoot.issueIntermediate("Rogue CA 1").issueLeaf(leaf, dnsNames: [leaf], ipAddresses: ["127.0.0.1"]))
    )
    caFile = try directory.file("ca.pem", root.certificate.pemEncoded + rogueRoot.certificate.pemEncoded)
  }

  func resolve(_ server: LocalTLSServer, _ name: String = "api.test") -> [String] {
    ["--resolve", "\(name):\(server.port):\(server.configuration.address == .ipv4Loopback ? "127.0.0.1" : "::1")"]
  }

  /// A JSON configuration pinning `api.test` to the genuine chain.
  func configuration(_ hosts: [String] = ["api.test"]) throws -> String {
    let entries = hosts.map {
      #""\#($0)": {"includesSubdomains": false, "chainSet": [[{"type": "prefixWithNumber", "value": "Test Root X"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "exact", "value": "api.test"}]]}"#
    }
    return try directory.file("pins.json", #"{"PinnedDomains": {"# + entries.joined(separator: ", ") + "}}")
  }
}
#endif
