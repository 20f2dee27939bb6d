#if os(Linux)
import CNPinning
import CNPinningTestKit
import Foundation

/// What one in-process run printed (the line multi-client.c and `CNPinningPeerClient in-process`
/// share): the time per request, the median, p99 and slowest of single requests or batches, and
/// the process's context switches per request (every thread), where the hand-offs show.
struct InProcessRun {
  let perRequest: Double
  let p50: Double
  let p99: Double
  let slowest: Double
  /// Absent from the floor measurements' lines.
  let switches: Double?

  /// Reads "per_request_us U [batch_]p50_us A [batch_]p99_us B [batch_]max_us C
  /// [switches_per_request S]".
  init(line: String) throws {
    let words = line.split(separator: " ").map(String.init)
    func value(_ name: String) throws -> Double {
      guard let index = words.firstIndex(where: { $0 == name || $0 == "batch_" + name }), index + 1 < words.count,
        let value = Double(words[index + 1])
      else { throw TestKitError(message: "no \(name) in \"\(line)\"") }
      return value
    }
    perRequest = try value("per_request_us")
    p50 = try value("p50_us")
    p99 = try value("p99_us")
    slowest = try value("max_us")
    switches = try? value("switches_per_request")
  }
}

/// The per-request cost in one long-lived process, side by side with libcurl's multi interface
/// driven from C with the same options (multi-client.c, built by `make bench-peers` into DIR):
/// each workload runs `rounds` times, alternating which goes first; medians of the rounds, the
/// median p99 and the slowest request (or batch) of all rounds. Returns the targets missed.
func runInProcess(
  client: String, cClient: String, servers: (newConnections: NginxServer, keepAlive: NginxServer), root: String,
  pins: String, spkiPin: String, withURLSession: Bool, rounds: Int, counter: InstructionCounter?
) throws -> Int {
  struct Workload {
    let name: String
    let server: NginxServer
    let count: Int
    let concurrency: Int
    /// Requests started together and waited for as one batch; 0 for none.
    let batch: Int
    /// The most CNPinnedSession's time per request may be, as a multiple of libcurl's.
    let target: Double
    /// How CNPinningPeerClient makes the request: "pinned" (`data(for:)`), "pinned-executor"
    /// (`data(for:)` from tasks that prefer `CNPinnedSession.executor`) or "exchange"
    /// (`exchange(_:)`, the body read as it arrives, no `HTTPURLResponse`).
    var kind = "pinned"
    /// The protocol of the work, for libcurl from C too: a streamed body, as `exchange(_:)`'s,
    /// goes over HTTP/1.1 (the session does not offer it HTTP/2).
    var offersHTTP2: Bool { kind != "exchange" }
  }
  // The targets are issue 57's for data(for:) (sequential 1.15, 8 concurrent 1.3, a new
  // connection each 1.05; the batches' tail at most 3× their median and 50 ms) and issue 46's for
  // the rest. data(for:) returns Foundation's HTTPURLResponse, whose initialiser alone adds about
  // half of libcurl's instructions (docs/decisions/session-linux.md); exchange(_:) makes none.
  let workloads = [
    Workload(
      name: "sequential, keep-alive (HTTP/2)", server: servers.keepAlive, count: 2000, concurrency: 1, batch: 0, target: 1.15),
    Workload(name: "8 concurrent (HTTP/2)", server: servers.keepAlive, count: 4000, concurrency: 8, batch: 0, target: 1.3),
    Workload(
      name: "new connection each (HTTP/1.1)", server: servers.newConnections, count: 200, concurrency: 1, batch: 0, target: 1.05),
    Workload(
      name: "batches of 100 concurrent (HTTP/2)", server: servers.keepAlive, count: 4000, concurrency: 100, batch: 100,
      target: 1.5),
    Workload(
      name: "sequential, callers preferring session.executor", server: servers.keepAlive, count: 2000, concurrency: 1,
      batch: 0, target: 1.15, kind: "pinned-executor"),
    Workload(
      name: "8 concurrent, callers preferring session.executor", server: servers.keepAlive, count: 4000, concurrency: 8,
      batch: 0, target: 1.3, kind: "pinned-executor"),
    Workload(
      name: "exchange(_:), sequential, keep-alive (HTTP/1.1)", server: servers.keepAlive, count: 2000, concurrency: 1, batch: 0,
      target: 1.15, kind: "exchange"),
    Workload(
      name: "exchange(_:), 8 concurrent (HTTP/1.1)", server: servers.keepAlive, count: 4000, concurrency: 8, batch: 0,
      target: 1.15,
      kind: "exchange"),
  ]
  print("in process, after 200 requests to warm up; \(rounds) alternating rounds; times per request in µs")
  var missed = 0
  for workload in workloads {
    let url = "https://127.0.0.1:\(workload.server.port)/"
    let shape = ["\(workload.count)", "\(workload.concurrency)"] + (workload.batch > 0 ? ["\(workload.batch)"] : [])
    let cCommand = [cClient] + (workload.offersHTTP2 ? [] : ["--http1.1"])
    var commands: [(name: String, command: [String])] = [
      ("CNPinnedSession", [client, "in-process", workload.kind, root, pins, url] + shape),
      ("libcurl (C)", cCommand + [url, root, spkiPin] + shape),
    ]
    if withURLSession, workload.kind == "pinned" {
      commands.append(("URLSession", [client, "in-process", "urlsession", "-", "-", url] + shape))
      commands.append(("URLSession+cnPinned", [client, "in-process", "urlprotocol", root, pins, url] + shape))
    }
    var runs: [String: [InProcessRun]] = [:]
    for round in 0..<rounds {
      let order = round % 2 == 0 ? commands : commands.reversed()
      for (name, command) in order { runs[name, default: []].append(try InProcessRun(line: try outputLine(of: command))) }
    }
    func summary(_ name: String) -> (perRequest: Double, p50: Double, p99: Double, slowest: Double, switches: Double?) {
      let all = runs[name]!
      return (
        median(all.map(\.perRequest)), median(all.map(\.p50)), median(all.map(\.p99)), all.map(\.slowest).max()!,
        all.contains { $0.switches == nil } ? nil : median(all.compactMap(\.switches))
      )
    }
    let ours = summary("CNPinnedSession")
    let theirs = summary("libcurl (C)")
    let ratio = ours.perRequest / theirs.perRequest
    let met = ratio <= workload.target
    if !met { missed += 1 }
    let unit = workload.batch > 0 ? "batch" : "request"
    print(
      String(
        format: "%@: CNPinnedSession %.1f, libcurl %.1f → ratio %.2f (target ≤ %.2f) %@", workload.name, ours.perRequest,
        theirs.perRequest, ratio, workload.target, met ? "MET" : "MISSED"))
    print(
      String(
        format: "    per %@: CNPinnedSession median %.0f, p99 %.0f, slowest %.0f; libcurl median %.0f, p99 %.0f, slowest %.0f",
        unit,
        ours.p50, ours.p99, ours.slowest, theirs.p50, theirs.p99, theirs.slowest))
    // The hand-offs between threads, beside the times (nginx shares the machine, so every client
    // switches about once a request while it waits for the answer).
    if let ourSwitches = ours.switches, let theirSwitches = theirs.switches {
      print(
        String(
          format: "    context switches per request (every thread): CNPinnedSession %.2f, libcurl %.2f", ourSwitches,
          theirSwitches))
    }
    if workload.batch > 0 {
      // The latency tail: no batch may wait on a missed wake-up.
      let tailMet = ours.slowest <= 3 * ours.p50 && ours.slowest < 50_000
      print(
        String(
          format: "    slowest batch %.1f ms, %.1f× the median batch (target ≤ 3×, and under 50 ms) %@", ours.slowest / 1000,
          ours.slowest / ours.p50, tailMet ? "MET" : "MISSED"))
      if !tailMet { missed += 1 }
    }
    if !met, workload.server === servers.keepAlive {
      print(
        "    where the rest goes (the counts below, Foundation's response object, the thread hand-offs): "
          + "docs/decisions/session-linux.md, \"Concurrent requests, counted beside the times\"")
    }
    if counter != nil, workload.server !== servers.keepAlive {
      // 200 handshakes of warm-up per run under valgrind take minutes, and the row is the handshake's.
      print("    instructions not counted: each request is a TLS handshake (see the sequential rows for a request's own)")
    } else if let counter {
      let tail = ["\(workload.concurrency)"] + (workload.batch > 0 ? ["\(workload.batch)"] : [])
      let spread = (counter.low, counter.high)
      let ourCount = try counter.perRequest(runs: spread) { count in
        counter.swiftClient([client, "in-process", workload.kind, root, pins, url, "\(count)"] + tail)
      }
      let theirCount = try counter.perRequest(runs: spread) { count in cCommand + [url, root, spkiPin, "\(count)"] + tail }
      print(
        String(
          format: "    instructions per request (callgrind, all threads, runs of %d and %d): CNPinnedSession %.0f, "
            + "libcurl %.0f → ratio %.2f", spread.0, spread.1, ourCount, theirCount, ourCount / theirCount))
    }
    if workload.concurrency == 1, workload.batch == 0, workload.server === servers.keepAlive, workload.kind == "pinned" {
      // What stands between this row and its target, measured in process: the response object
      // every request returns. A request on an idle session drives libcurl on its own thread;
      // one handed to the shared network thread (as concurrent ones are) also pays a round trip.
      let response = try InProcessRun(line: try outputLine(of: [client, "response-floor", root, pins, url])).perRequest
      let handoff = try InProcessRun(line: try outputLine(of: [client, "handoff-floor"])).perRequest
      print(
        String(
          format:
            "    floor: Foundation's HTTPURLResponse initialiser %.1f µs (warm) → libcurl + it: ratio %.2f; "
            + "a request handed to the network thread also pays a task-to-thread round trip, %.1f µs",
          response, (theirs.perRequest + response) / theirs.perRequest, handoff))
    }
    if withURLSession, workload.kind == "pinned" {
      let plain = summary("URLSession")
      let pinned = summary("URLSession+cnPinned")
      let protocolRatio = pinned.perRequest / plain.perRequest
      let protocolMet = protocolRatio <= 1
      if !protocolMet { missed += 1 }
      print(
        String(
          format: "    URLSession pinned by .cnPinned %.1f vs unpinned URLSession %.1f → ratio %.2f (target ≤ 1.0) %@",
          pinned.perRequest, plain.perRequest, protocolRatio, protocolMet ? "MET" : "MISSED"))
    }
  }
  return missed
}

/// Runs a command and returns the last line it printed; throws, with its standard error, when it fails.
func outputLine(of command: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: command[0])
  process.arguments = Array(command.dropFirst())
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  guard process.terminationStatus == 0, let line = text.split(separator: "\n").last else {
    throw TestKitError(message: "\(command.prefix(3).joined(separator: " ")) … failed: \(errorText)")
  }
  return String(line)
}
#endif
