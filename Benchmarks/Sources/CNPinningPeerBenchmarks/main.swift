#if os(Linux)
import CNPinning
import CNPinningTestKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// CNPinnedSession against the tools people would use instead, on the same nginx: first in one
// long-lived process per client, against libcurl's multi interface driven from C with the same
// options (multi-client.c; per-request time, p99 and the slowest request or batch), then each
// timed as a whole process in alternating rounds: the curl CLI with --pinnedpubkey, and
// Foundation's URLSession (unpinned). Prints medians, ratios and targets; then 10,000 requests on
// one reused connection with the resident-memory target, and 1 GiB streamed each way with the
// peak-memory target.
//
// Usage: CNPinningPeerBenchmarks prepare DIR             writes a test PKI and pins into DIR
//        CNPinningPeerBenchmarks run DIR CLIENT [ROUNDS]   CLIENT: the CNPinningPeerClient executable
//        CNPinningPeerBenchmarks serve DIR SECONDS        the two nginx servers, for profiling
//
// URLSession reads only the system CA bundle, so `make bench-peers` runs `run` in a private mount
// namespace with DIR/root.pem bound over it (as root); without that, URLSession is skipped.

let arguments = CommandLine.arguments
func usage() -> Never {
  print("usage: CNPinningPeerBenchmarks prepare DIR | run DIR CLIENT [ROUNDS] | serve DIR SECONDS")
  exit(2)
}
guard arguments.count >= 3 else { usage() }
let directory = URL(fileURLWithPath: arguments[2])
let rootFile = directory.appendingPathComponent("root.pem")
let pinsFile = directory.appendingPathComponent("pins.json")
let leafFile = directory.appendingPathComponent("leaf.der")
let leafKeyFile = directory.appendingPathComponent("leaf-key.pem")
let intermediateFile = directory.appendingPathComponent("intermediate.der")

func skip(_ why: String) -> Never {
  print("bench-peers skipped: \(why)")
  exit(0)
}

/// Runs a command to completion with its output discarded; returns its wall time in seconds.
/// Started with posix_spawn and reaped with waitpid, so the harness adds as little as it can
/// (Foundation's Process costs tens of milliseconds per launch here, which would blur every
/// ratio towards 1). A failure is run once more through Process to show its output.
func timed(_ command: [String]) throws -> Double {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  let arguments = command.map { strdup($0) } + [nil]
  defer { for argument in arguments { free(argument) } }
  var pid: pid_t = 0
  let start = DispatchTime.now().uptimeNanoseconds
  guard posix_spawn(&pid, command[0], &actions, nil, arguments, environ) == 0 else {
    throw TestKitError(message: "cannot start \(command[0])")
  }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  guard status == 0 else {
    throw TestKitError(message: "\(command.prefix(3).joined(separator: " ")) … failed: \(output(of: command))")
  }
  return seconds
}

/// What a command writes to standard error (to explain a failure).
func output(of command: [String]) -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: command[0])
  process.arguments = Array(command.dropFirst())
  let errors = Pipe()
  process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
  process.standardError = errors
  guard (try? process.run()) != nil else { return "cannot start it" }
  let data = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// A private PKI; the leaf names 127.0.0.1 so that every client uses the same URL.
func prepare() throws {
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  let root = try TestIdentity.root("Bench Root X1")
  let intermediate = try root.issueIntermediate("R11")
  let leaf = try intermediate.issueLeaf("bench.test", dnsNames: ["bench.test"], ipAddresses: ["127.0.0.1"])
  try root.certificate.pemEncoded.write(to: rootFile, atomically: true, encoding: .utf8)
  try Data(intermediate.certificate.derEncoded).write(to: intermediateFile)
  try Data(leaf.certificate.derEncoded).write(to: leafFile)
  try leaf.privateKey.pemEncoded.write(to: leafKeyFile, atomically: true, encoding: .utf8)
  try """
  {"CNPinningManager": {"PinnedDomains": {"127.0.0.1": {"includesSubdomains": false, "chainSet": [[
    {"type": "prefixWithNumber", "value": "Bench Root X"}, {"type": "prefixWithNumber", "value": "R"},
    {"type": "exact", "value": "bench.test"}]]}}}}
  """.write(to: pinsFile, atomically: true, encoding: .utf8)
}

/// The two servers: keep-alive off (HTTP/1.1), and keep-alive with HTTP/2.
func startServers() throws -> (newConnections: NginxServer, keepAlive: NginxServer, leaf: CNCertificate) {
  let intermediate = try CNCertificate(derEncoded: Data(contentsOf: intermediateFile))
  let leaf = try CNCertificate(derEncoded: Data(contentsOf: leafFile))
  var served = NginxServer.Configuration(
    chain: [leaf, intermediate], privateKeyPEM: try String(contentsOf: leafKeyFile, encoding: .utf8))
  served.servesFiles = true
  var closing = served
  closing.keepAlive = false
  closing.http2 = false
  return (try NginxServer.start(closing), try NginxServer.start(served), leaf)
}

/// Every workload, side by side; returns the number of targets missed.
func runAll(client clientPath: String, rounds: Int) throws -> Int {
  guard let curl = ["/usr/bin/curl", "/usr/local/bin/curl"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
    skip("the curl command-line tool is not installed")
  }
  let (newConnections, keepAlive, leaf) = try startServers()
  defer {
    newConnections.stop()
    keepAlive.stop()
  }
  let spkiPin = "sha256//" + leaf.spkiSHA256Base64
  // URLSession trusts the test root only when this process runs with it bound over the system bundle.
  let systemBundle = try? String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
  let withURLSession = try systemBundle == String(contentsOf: rootFile, encoding: .utf8)
  if !withURLSession {
    print("note: URLSession skipped: it trusts only the system CA bundle (make bench-peers binds the test root over it as root)")
  }

  struct Workload {
    let name: String
    let server: NginxServer
    let count: Int
    let concurrency: Int
    let target: Double
  }
  // Issue 57's targets: as fast as curl for new and keep-alive connections, 1.2 at concurrency 8.
  let workloads = [
    Workload(name: "(a) 200 sequential, new connection each", server: newConnections, count: 200, concurrency: 1, target: 1.0),
    Workload(name: "(b) 200 sequential, keep-alive", server: keepAlive, count: 200, concurrency: 1, target: 1.0),
    Workload(name: "(c) 400 at concurrency 8, HTTP/2", server: keepAlive, count: 400, concurrency: 8, target: 1.2),
  ]

  print("bench-peers: nginx \(keepAlive.port) (keep-alive, HTTP/2) and \(newConnections.port) (keep-alive off)")
  var missed = 0
  let cClient = directory.appendingPathComponent("multi-client").path
  if FileManager.default.isExecutableFile(atPath: cClient) {
    missed += try runInProcess(
      client: clientPath, cClient: cClient, servers: (newConnections, keepAlive), root: rootFile.path, pins: pinsFile.path,
      spkiPin: spkiPin, withURLSession: withURLSession, rounds: max(3, rounds / 2),
      counter: InstructionCounter(client: clientPath, directory: directory))
  } else {
    print("note: the in-process comparison skipped: \(cClient) is missing (make bench-peers builds it)")
  }
  print("whole processes against the curl command-line tool; \(rounds) alternating rounds, medians")
  for (index, workload) in workloads.enumerated() {
    let url = "https://127.0.0.1:\(workload.server.port)/"
    // One file per workload, rewritten each run (the ports change from run to run).
    let curlConfig = directory.appendingPathComponent("curl-workload-\(index).conf")
    try String(repeating: "url = \"\(url)\"\noutput = \"/dev/null\"\n", count: workload.count)
      .write(to: curlConfig, atomically: true, encoding: .utf8)
    var commands: [(String, [String])] = [
      (
        "CNPinnedSession",
        ([clientPath, "pinned", rootFile.path, pinsFile.path, url, "\(workload.count)", "\(workload.concurrency)"])
      ),
      (
        "curl",
        ([curl, "-s", "-f", "--cacert", rootFile.path, "--pinnedpubkey", spkiPin, "-K", curlConfig.path]
          + (workload.concurrency > 1 ? ["-Z", "--parallel-max", "\(workload.concurrency)"] : []))
      ),
    ]
    if withURLSession {
      commands.append(
        ("URLSession", ([clientPath, "urlsession", "-", "-", url, "\(workload.count)", "\(workload.concurrency)"])))
    }
    // URLSession pinned through CNPinningURLProtocol; compared with the unpinned URLSession.
    commands.append(
      (
        "URLSession+cnPinned",
        ([clientPath, "urlprotocol", rootFile.path, pinsFile.path, url, "\(workload.count)", "\(workload.concurrency)"])
      ))
    for (_, command) in commands { _ = try timed(command) }  // warm-up: page cache, nginx workers
    var times: [String: [Double]] = [:]
    for round in 0..<rounds {
      let order = round % 2 == 0 ? commands : commands.reversed()
      for (name, command) in order { times[name, default: []].append(try timed(command)) }
    }
    let ours = median(times["CNPinnedSession"]!)
    let theirs = median(times["curl"]!)
    let ratio = ours / theirs
    let met = ratio <= workload.target
    // The ratio of each round (ours and curl's run back to back), to show how much it moves.
    let perRound = zip(times["CNPinnedSession"]!, times["curl"]!).map { $0 / $1 }.sorted()
    print(
      String(
        format:
          "%@: CNPinnedSession %.3f s, curl %.3f s → ratio %.2f (rounds %.2f–%.2f, middle half %.2f–%.2f; target ≤ %.1f) %@",
        workload.name, ours, theirs, ratio, perRound[0], perRound[perRound.count - 1], perRound[perRound.count / 4],
        perRound[(perRound.count * 3) / 4], workload.target, met ? "MET" : "MISSED"))
    if !met { missed += 1 }
    if let urlSession = times["URLSession"].map(median) {
      let faster = urlSession / ours
      print(
        String(
          format: "    URLSession %.3f s → CNPinnedSession %.1f× faster (target ≥ 2) %@", urlSession, faster,
          faster >= 2 ? "MET" : "MISSED"))
      if faster < 2 { missed += 1 }
      let pinnedURLSession = median(times["URLSession+cnPinned"]!)
      let protocolRatio = pinnedURLSession / urlSession
      print(
        String(
          format: "    URLSession pinned by .cnPinned %.3f s vs unpinned URLSession → ratio %.2f (target ≤ 1.0) %@",
          pinnedURLSession, protocolRatio, protocolRatio <= 1 ? "MET" : "MISSED"))
      if protocolRatio > 1 { missed += 1 }
    }
  }

  // Resident memory over 10,000 requests on one reused connection.
  let soak = Process()
  soak.executableURL = URL(fileURLWithPath: clientPath)
  soak.arguments = ["pinned", rootFile.path, pinsFile.path, "https://127.0.0.1:\(keepAlive.port)/", "10000", "1", "--soak"]
  let output = Pipe()
  soak.standardOutput = output
  try soak.run()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
    in: .whitespacesAndNewlines)
  soak.waitUntilExit()
  let growth = text.split(separator: " ").last.flatMap { Double($0) } ?? .infinity
  let soakMet = soak.terminationStatus == 0 && growth < 1.0
  print("10,000 requests on one reused connection: \(text) (target < 1 MB) \(soakMet ? "MET" : "MISSED")")
  if !soakMet { missed += 1 }
  missed += try streamLargeBodies(client: clientPath, http2: keepAlive, http1: newConnections)
  return missed
}

/// 1 GiB through a pinned session each way, against nginx (sent with sendfile; stored by a DAV
/// PUT): the peak resident growth of the client process while it streams, against the target.
func streamLargeBodies(client clientPath: String, http2: NginxServer, http1: NginxServer) throws -> Int {
  // A sparse file of 1 GiB in each server's files: the body streamed each way.
  for server in [http2, http1] {
    let file = server.filesDirectory.appendingPathComponent("1GiB.bin")
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
      throw TestKitError(message: "cannot create \(file.path)")
    }
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 1 << 30)
    try handle.close()
  }
  let largeFile = http2.filesDirectory.appendingPathComponent("1GiB.bin")
  let runs: [(name: String, mode: String, server: NginxServer, path: String)] = [
    ("bytes(for:) over HTTP/2", "stream-download", http2, "/files/1GiB.bin"),
    ("bytes(for:) over HTTP/1.1", "stream-download", http1, "/files/1GiB.bin"),
    ("upload(for:fromFile:) over HTTP/2", "stream-upload", http2, "/files/uploaded.bin"),
    ("httpBodyStream, chunked over HTTP/1.1", "stream-upload-stream", http1, "/files/uploaded.bin"),
    ("exchange(_:) download", "exchange-download", http2, "/files/1GiB.bin"),
    ("exchange(_:) upload of a sequence, chunked", "exchange-upload", http2, "/files/uploaded.bin"),
  ]
  var missed = 0
  // Four streams whose reader never reads, 2 s after they start, while other requests go on.
  for (name, server) in [("HTTP/2", http2), ("HTTP/1.1", http1)] {
    let text = try outputLine(
      of: [clientPath, "stream-stall", rootFile.path, pinsFile.path, "https://127.0.0.1:\(server.port)/files/1GiB.bin"])
    let growth = text.split(separator: " ").last.flatMap { Double($0) } ?? .infinity
    let met = growth <= 20
    print("4 stalled bytes(for:) streams, server offering \(name): \(text) (target ≤ 20 MB) \(met ? "MET" : "MISSED")")
    if !met { missed += 1 }
  }
  for run in runs {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: clientPath)
    process.arguments = [
      run.mode, rootFile.path, pinsFile.path, "https://127.0.0.1:\(run.server.port)\(run.path)", largeFile.path,
    ]
    let output = Pipe()
    process.standardOutput = output
    let start = DispatchTime.now().uptimeNanoseconds
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    process.waitUntilExit()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let growth = text.split(separator: " ").last.flatMap { Double($0) } ?? .infinity
    let movedAll = text.hasPrefix("moved \(1 << 30) bytes")
    let met = process.terminationStatus == 0 && movedAll && growth < 16
    print(
      String(format: "1 GiB, %@: %.1f s; ", run.name, seconds) + "\(text.isEmpty ? "failed" : text) (target < 16 MB) "
        + (met ? "MET" : "MISSED"))
    if !met { missed += 1 }
  }
  return missed
}

do {
  switch arguments[1] {
  case "prepare":
    try prepare()
  case "serve" where arguments.count >= 4:
    guard let seconds = Double(arguments[3]), seconds.isFinite, seconds > 0 else {
      print("bench-peers: SECONDS must be a positive number, not \"\(arguments[3])\"")
      exit(2)
    }
    let (newConnections, keepAlive, _) = try startServers()
    // Written unbuffered: scripts/profile-peers.sh reads it while the servers run.
    FileHandle.standardOutput.write(
      Data("nginx: keep-alive off on \(newConnections.port), keep-alive and HTTP/2 on \(keepAlive.port)\n".utf8))
    Thread.sleep(forTimeInterval: seconds)
    newConnections.stop()
    keepAlive.stop()
  case "run" where arguments.count >= 4:
    guard NginxServer.executable != nil else { skip("nginx is not installed (make deps installs Debian's nginx-light)") }
    let written = arguments.count > 4 ? arguments[4] : "10"
    guard let rounds = Int(written), (1...1000).contains(rounds) else {
      print("bench-peers: ROUNDS must be a whole number from 1 to 1000, not \"\(written)\"")
      exit(2)
    }
    let missed = try runAll(client: arguments[3], rounds: rounds)
    print(missed == 0 ? "All bench-peers targets met." : "\(missed) bench-peers targets missed.")
    exit(missed == 0 ? 0 : 1)
  default:
    usage()
  }
} catch {
  print("bench-peers failed: \(error)")
  exit(2)
}
#else
print("The peer benchmarks run on Linux.")
#endif
