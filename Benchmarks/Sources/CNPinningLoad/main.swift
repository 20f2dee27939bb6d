#if os(Linux)
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation

// Load: 1,000 requests held in flight through one CNPinnedSession for a minute, across 20 host
// names (half HTTP/2, half HTTP/1.1, each with its own pins; one in five serves a chain the pins
// refuse). The servers run in a child process (this program, `serve`), so that the figures are
// the client's: throughput, latency (p50, p99, slowest), resident memory per open connection,
// file descriptors at the peak and after the session is gone, and every refusal checked to be
// a pin refusal.
//
// Usage: CNPinningLoad [SECONDS] [IN_FLIGHT]     (60 and 1000 by default)

let hostCount = 20

/// A value shared by the request tasks, behind a lock (the library's own is package-internal).
// Unchecked Sendable: every access to the value goes through the lock.
final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  init(_ value: Value) { self.value = value }
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

func host(_ index: Int) -> String { "h\(index).load.test" }
func isRogue(_ index: Int) -> Bool { index % 5 == 4 }

/// The child: starts the servers, prints their ports and the two roots, serves until stdin closes.
func serve() throws -> Never {
  let root = try TestIdentity.root("Load Root X1")
  let intermediate = try root.issueIntermediate("R11")
  let rogueRoot = try TestIdentity.root("Rogue Root")
  let rogueIntermediate = try rogueRoot.issueIntermediate("R11")
  var servers: [LocalTLSServer] = []
  for index in 0..<hostCount {
    let issuer = isRogue(index) ? rogueIntermediate : intermediate
    var setup = LocalTLSServer.Configuration(identity: try issuer.issueLeaf(host(index), dnsNames: [host(index)]))
    setup.servesHTTP2 = index % 2 == 0
    setup.recordsRequests = false
    servers.append(try LocalTLSServer.start(setup))
  }
  let line: [String: [String]] = [
    "ports": servers.map { String($0.port) }, "roots": [root.certificate.pemEncoded, rogueRoot.certificate.pemEncoded],
  ]
  FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: line) + Data("\n".utf8))
  _ = FileHandle.standardInput.readDataToEndOfFile()
  exit(0)
}

func residentMegabytes() -> Double {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
  let pages = Double(statm.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0)
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// Open file descriptors, and how many of them are sockets.
func descriptors() -> (all: Int, sockets: Int) {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  let sockets = entries.filter {
    ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "").hasPrefix("socket:")
  }
  return (entries.count, sockets.count)
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
  sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

/// What the requests did.
struct Tally: Sendable {
  var accepted: [Double] = []
  var refusedByPins = 0
  /// Anything else: a rogue host accepted, a genuine host refused, a refusal of another kind.
  var wrong: [String] = []
}

func run(seconds: Double, inFlight: Int) async throws {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  child.arguments = ["serve"]
  let output = Pipe()
  let input = Pipe()
  child.standardOutput = output
  child.standardInput = input
  try child.run()
  defer {
    try? input.fileHandleForWriting.close()
    child.waitUntilExit()
  }
  var buffer = Data()
  while !buffer.contains(UInt8(ascii: "\n")) {
    let chunk = output.fileHandleForReading.availableData
    guard !chunk.isEmpty else { throw CNPinnedSessionError.invalidArgument("the server process ended early") }
    buffer += chunk
  }
  guard let line = try JSONSerialization.jsonObject(with: buffer) as? [String: [String]], let ports = line["ports"],
    let roots = line["roots"], ports.count == hostCount
  else { throw CNPinnedSessionError.invalidArgument("the server process printed no ports") }

  var configuration = CNPinnedSessionConfiguration()
  configuration.trust = .customAnchors(try roots.map { try CNCertificate(pemEncoded: $0) })
  configuration.resolve = ports.enumerated().map {
    CNHostOverride(host: host($0.offset), port: Int($0.element)!, address: "127.0.0.1")
  }
  configuration.proxy = .direct
  var pins: [String: CNConfiguration] = [:]
  for index in 0..<hostCount {
    let chain = try CNChain([
      try CNChainLink(.exact, "Load Root X1"), try CNChainLink(.prefixWithNumber, "R"), try CNChainLink(.exact, host(index)),
    ])
    pins[host(index)] = try CNConfiguration([chain])
  }
  let urls = (0..<hostCount).map { URL(string: "https://\(host($0)):\(ports[$0])/")! }
  let manager = try CNPinningManager(configuration: pins)
  let baseline = (memory: residentMegabytes(), descriptors: descriptors())
  let peak = Locked((memory: baseline.memory, descriptors: baseline.descriptors.all, sockets: baseline.descriptors.sockets))
  let tally = Locked(Tally())
  let next = Locked(0)
  let deadline = Date().addingTimeInterval(seconds)
  let started = Date()
  let sampler = Task {
    while !Task.isCancelled {
      let now = (memory: residentMegabytes(), descriptors: descriptors())
      peak.withLock {
        $0 = (max($0.memory, now.memory), max($0.descriptors, now.descriptors.all), max($0.sockets, now.descriptors.sockets))
      }
      try? await Task.sleep(for: .milliseconds(200))
    }
  }
  // The session lives in this function only, so that it is gone when the descriptors are counted after.
  func drive() async throws {
    let pinned = try CNPinnedSession(manager: manager, configuration: configuration)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<inFlight {
        group.addTask {
          while Date() < deadline {
            let index = next.withLock { value in
              defer { value += 1 }
              return value % hostCount
            }
            let sent = DispatchTime.now().uptimeNanoseconds
            do {
              let (body, response) = try await pinned.data(from: urls[index])
              let seconds = Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9
              tally.withLock { tally in
                if isRogue(index) || response.statusCode != 200 || body != Data("hello".utf8) {
                  tally.wrong.append("\(host(index)): accepted with \(response.statusCode)")
                } else {
                  tally.accepted.append(seconds)
                }
              }
            } catch let error as CNPinnedSessionError where error.code == .pinMismatch && isRogue(index) {
              tally.withLock { $0.refusedByPins += 1 }
            } catch {
              tally.withLock { $0.wrong.append("\(host(index)): \(error)") }
            }
          }
        }
      }
    }
  }
  try await drive()
  let elapsed = Date().timeIntervalSince(started)
  sampler.cancel()
  _ = await sampler.value
  var after = descriptors()
  for _ in 0..<100 where after.sockets > baseline.descriptors.sockets {
    try await Task.sleep(for: .milliseconds(100))
    after = descriptors()
  }

  let result = tally.withLock { $0 }
  let latencies = result.accepted.sorted()
  let requests = result.accepted.count + result.refusedByPins + result.wrong.count
  let top = peak.withLock { $0 }
  let connections = max(1, top.sockets - baseline.descriptors.sockets)
  print(
    String(
      format: "load: %d in flight over %d hosts (10 HTTP/2, 10 HTTP/1.1, 4 refused by pins) for %.0f s: %d requests, %.0f/s",
      inFlight, hostCount, elapsed, requests, Double(requests) / elapsed))
  print(
    String(
      format: "load: accepted %d, refused by pins %d, wrong %d; latency of accepted p50 %.1f ms, p99 %.1f ms, slowest %.1f ms",
      result.accepted.count, result.refusedByPins, result.wrong.count, percentile(latencies, 0.5) * 1000,
      percentile(latencies, 0.99) * 1000, (latencies.last ?? 0) * 1000))
  print(
    String(
      format: "load: resident memory %.1f MB → peak %.1f MB over %d open sockets (%.0f KB per connection); "
        + "descriptors %d before, %d at the peak, %d after the session",
      baseline.memory, top.memory, connections, (top.memory - baseline.memory) * 1024 / Double(connections),
      baseline.descriptors.all, top.descriptors, after.all))
  for line in result.wrong.prefix(5) { print("load: wrong: \(line)") }
  if !result.wrong.isEmpty || result.refusedByPins == 0 || after.sockets > baseline.descriptors.sockets { exit(1) }
}

if CommandLine.arguments.dropFirst().first == "serve" { try serve() }
let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) : 60
let inFlight = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) : 1000
guard let seconds, let inFlight, seconds > 0, inFlight > 0 else {
  FileHandle.standardError.write(Data("usage: CNPinningLoad [SECONDS] [IN_FLIGHT]\n".utf8))
  exit(2)
}
do {
  try await run(seconds: seconds, inFlight: inFlight)
} catch {
  print("load failed: \(error)")
  exit(2)
}
#else
print("The load benchmark runs on Linux (OpenSSL and libcurl).")
#endif
