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

/// Runs `cnpin` with `arguments` (and extra environment), with a bounded wait.
func cnpin(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
  let process = Process()
  process.executableURL = cnpinExecutable
  process.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  env.merge(environment) { $1 }
  process.environment = env
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
  try process.run()
  // Read both pipes concurrently so a full pipe cannot block the child.
  let group = DispatchGroup()
  let outputs = Locked<[Int: Data]>([:])
  for (index, pipe) in [out, err].enumerated() {
    group.enter()
    DispatchQueue.global().async {
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      outputs.withLock { $0[index] = data }
      group.leave()
    }
  }
  if group.wait(timeout: .now() + 120) == .timedOut {
    process.terminate()
    Issue.record("cnpin \(arguments.joined(separator: " ")) did not finish within 120 s")
  }
  process.waitUntilExit()
  let data = outputs.withLock { $0 }
  return Run(
    status: process.terminationStatus, stdout: String(decoding: data[0] ?? Data(), as: UTF8.self),
    stderr: String(decoding: data[1] ?? Data(), as: UTF8.self))
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

  init(
    root rootName: String = "Test Root X1", intermediate: String = "R11", leaf: String = "api.test",
    genuineHandler: @escaping @Sendable (LocalTLSServer.Request) -> LocalTLSServer.Response = { _ in .text("hello") },
    address: LocalTLSServer.Address = .ipv4Loopback
  ) throws {
    directory = try TemporaryDirectory()
    root = try TestIdentity.root(rootName)
    let leafIdentity = try root.issueIntermediate(intermediate).issueLeaf(
      leaf, dnsNames: [leaf, "other.test"], ipAddresses: ["127.0.0.1", "::1"])
    var setup = LocalTLSServer.Configuration(identity: leafIdentity, handler: genuineHandler)
    setup.address = address
    genuine = try LocalTLSServer.start(setup)
    let rogueRoot = try TestIdentity.root("Rogue Root CA")
    rogue = try LocalTLSServer.start(
      .init(identity: try rogueRoot.issueIntermediate("Rogue CA 1").issueLeaf(leaf, dnsNames: [leaf], ipAddresses: ["127.0.0.1"])))
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
