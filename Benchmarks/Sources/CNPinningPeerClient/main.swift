#if os(Linux)
import CNPinning
@_spi(Measurement) import CNPinningSession
import Foundation
import FoundationNetworking

// One benchmark client process: COUNT GET requests to URL, CONCURRENCY at a time, through a pinned
// CNPinnedSession or Foundation's URLSession. Timed from outside as a whole process by
// CNPinningPeerBenchmarks. Exits 1 on the first failed request. CNPINNING_BENCH_BORROW_BUDGET_MS sets
// the session's borrow budget (scripts/instructions-per-request.py lengthens it under valgrind).
//
// Usage: CNPinningPeerClient pinned ROOT.pem PINS.json URL COUNT CONCURRENCY [--soak]
//        CNPinningPeerClient urlprotocol ROOT.pem PINS.json URL COUNT CONCURRENCY   (URLSession, .cnPinned)
//        CNPinningPeerClient urlsession - - URL COUNT CONCURRENCY
// With --soak: 200 requests to warm up, then COUNT more; prints the growth of resident memory.
//        CNPinningPeerClient stream-download ROOT.pem PINS.json URL            bytes(for:), counted
//        CNPinningPeerClient stream-stall ROOT.pem PINS.json URL               4 bytes(for:) never read
//        CNPinningPeerClient stream-upload ROOT.pem PINS.json URL FILE         PUT upload(for:fromFile:)
//        CNPinningPeerClient stream-upload-stream ROOT.pem PINS.json URL FILE  PUT with httpBodyStream
//        CNPinningPeerClient exchange-download ROOT.pem PINS.json URL          exchange(_:), counted
//        CNPinningPeerClient exchange-upload ROOT.pem PINS.json URL FILE       PUT of 1 GiB made as sent
// The stream modes print the bytes moved and the peak resident growth while they moved.
//        CNPinningPeerClient response-floor ROOT.pem PINS.json URL
// Times Foundation's HTTPURLResponse initialiser alone, on the fields URL's server sends: the part
// of each request's cost that any client returning an HTTPURLResponse on Linux pays.
//        CNPinningPeerClient handoff-floor
// Times a round trip from a task to a thread of its own and back (the thread watches a queue, the
// task resumes from a continuation): the least a request handed to a network thread shared by many
// tasks pays, and one that drives libcurl on its caller's own thread (as a request on an idle
// session does) does not.

let arguments = CommandLine.arguments
if arguments.count >= 8, arguments[1] == "in-process" {
  exit(await inProcess(arguments: Array(arguments.dropFirst(2))))
}
if arguments.count >= 2, arguments[1] == "handoff-floor" {
  exit(await handoffFloor())
}
if arguments.count >= 5, arguments[1] == "response-floor" {
  exit(await responseFloor(arguments: Array(arguments.dropFirst(2))))
}
if arguments.count >= 5, arguments[1].hasPrefix("stream-") || arguments[1].hasPrefix("exchange-") {
  exit(await streamBody(mode: arguments[1], arguments: Array(arguments.dropFirst(2))))
}
guard arguments.count >= 7, ["pinned", "urlprotocol", "urlsession"].contains(arguments[1]), let url = URL(string: arguments[4]),
  let count = Int(arguments[5]), count > 0, let concurrency = Int(arguments[6]), concurrency > 0
else {
  FileHandle.standardError.write(
    Data("usage: CNPinningPeerClient pinned|urlprotocol|urlsession ROOT.pem PINS.json URL COUNT CONCURRENCY [--soak]\n".utf8))
  exit(2)
}
let soak = arguments.dropFirst(7).contains("--soak")

/// One GET; throws unless the answer is a 200 with a body.
typealias Fetch = @Sendable () async throws -> Void

struct BadResponse: Error, CustomStringConvertible {
  let description: String
}

/// The request `kind` makes (`pinned-executor` is `pinned` from tasks that prefer the session's
/// executor), and the executor its callers prefer (nil: the default one, as most callers have).
func makeClient(kind: String, root: String, pins: String, url: URL) throws -> (fetch: Fetch, executor: (any TaskExecutor)?) {
  if kind == "urlsession" { return (urlSessionFetch(URLSession(configuration: .default), url: url), nil) }
  let anchors = try CNCertificate.certificates(pemEncoded: String(contentsOfFile: root, encoding: .utf8))
  let manager = try CNPinningManager(contentsOf: URL(filePath: pins, directoryHint: .notDirectory))
  var configuration = CNPinnedSessionConfiguration()
  configuration.trust = .customAnchors(anchors)
  configuration.unpinnedHosts = .deny
  if let milliseconds = ProcessInfo.processInfo.environment["CNPINNING_BENCH_BORROW_BUDGET_MS"].flatMap(Int.init) {
    configuration.borrowBudget = .milliseconds(milliseconds)
  }
  if kind == "urlprotocol" {
    return (
      urlSessionFetch(URLSession(configuration: try .cnPinned(manager: manager, configuration: configuration)), url: url), nil
    )
  }
  let session = try CNPinnedSession(manager: manager, configuration: configuration)
  if kind == "exchange" {
    let fetch: Fetch = {
      let response = try await session.exchange(CNHTTPRequest(url: url))
      var received = 0
      for try await chunk in response.body.chunks { received += chunk.count }
      guard response.statusCode == 200, received > 0 else { throw BadResponse(description: "status \(response.statusCode)") }
    }
    return (fetch, nil)
  }
  return (pinnedFetch(session, url: url), kind == "pinned-executor" ? session.executor : nil)
}

func pinnedFetch(_ session: CNPinnedSession, url: URL) -> Fetch {
  {
    let (data, response) = try await session.data(from: url)
    guard response.statusCode == 200, !data.isEmpty else { throw BadResponse(description: "status \(response.statusCode)") }
  }
}

func urlSessionFetch(_ session: URLSession, url: URL) -> Fetch {
  {
    let (data, response) = try await session.data(from: url)
    guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else {
      throw BadResponse(description: "\(response)")
    }
  }
}

/// COUNT requests, CONCURRENCY tasks each taking the next request until none are left.
func run(_ fetch: @escaping Fetch, count: Int) async throws {
  if concurrency == 1 {
    for _ in 0..<count { try await fetch() }
    return
  }
  let next = Counter()
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<concurrency {
      group.addTask {
        while next.take() < count { try await fetch() }
      }
    }
    try await group.waitForAll()
  }
}

// Unchecked Sendable: its count is behind a lock.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func take() -> Int {
    lock.lock()
    defer { lock.unlock() }
    value += 1
    return value - 1
  }
}

/// `count` chunks of `size` zero bytes, each made when it is asked for.
struct GeneratedChunks: AsyncSequence, Sendable {
  typealias Element = Data
  let count: Int
  let size: Int
  func makeAsyncIterator() -> Iterator { Iterator(remaining: count, size: size) }
  struct Iterator: AsyncIteratorProtocol {
    var remaining: Int
    let size: Int
    mutating func next() async -> Data? {
      guard remaining > 0 else { return nil }
      remaining -= 1
      return Data(count: size)
    }
  }
}

/// One large body through a pinned session, either way; prints the bytes and the growth of peak
/// resident memory (the kernel's high-water mark, reset after the session is set up).
func streamBody(mode: String, arguments: [String]) async -> Int32 {
  do {
    let anchors = try CNCertificate.certificates(pemEncoded: String(contentsOfFile: arguments[0], encoding: .utf8))
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = .customAnchors(anchors)
    configuration.unpinnedHosts = .deny
    let session = try CNPinnedSession(
      manager: try CNPinningManager(contentsOf: URL(fileURLWithPath: arguments[1])), configuration: configuration)
    guard let url = URL(string: arguments[2]) else { throw BadResponse(description: "bad URL \(arguments[2])") }
    let before = resetPeakResident()
    var moved = 0
    switch mode {
    case "stream-download":
      let (bytes, response) = try await session.bytes(from: url)
      guard response.statusCode == 200 else { throw BadResponse(description: "status \(response.statusCode)") }
      for try await chunk in bytes.chunks { moved += chunk.count }
    case "stream-stall":
      // Four streams whose reader never reads, while 20 other requests go through the session.
      var streams: [CNPinnedSession.AsyncBytes] = []
      for _ in 0..<4 { streams.append(try await session.bytes(from: url).0) }
      guard let other = URL(string: "/", relativeTo: url)?.absoluteURL else { throw BadResponse(description: "bad URL") }
      for _ in 0..<20 {
        guard try await session.data(from: other).1.statusCode == 200 else { throw BadResponse(description: "other request") }
      }
      try await Task.sleep(nanoseconds: 2_000_000_000)
      let peak = peakResidentMegabytes()
      print(
        String(
          format: "%d streams unread for 2 s; resident %.2f MB, peak %.2f MB, growth in MB: %.2f", streams.count, before, peak,
          peak - before))
      return 0
    case "exchange-download":
      let response = try await session.exchange(CNHTTPRequest(url: url))
      guard response.statusCode == 200 else { throw BadResponse(description: "status \(response.statusCode)") }
      for try await chunk in response.body.chunks { moved += chunk.count }
    case "exchange-upload":
      // 1 GiB made as it is sent, 64 KiB a chunk, with no length: chunked.
      let chunks = GeneratedChunks(count: (1 << 30) / (64 << 10), size: 64 << 10)
      let response = try await session.exchange(CNHTTPRequest(method: "PUT", url: url, body: .init(chunks)))
      for try await _ in response.body.chunks {}
      guard response.statusCode == 201 || response.statusCode == 204 else {
        throw BadResponse(description: "status \(response.statusCode)")
      }
      moved = chunks.count * chunks.size
    case "stream-upload", "stream-upload-stream":
      guard arguments.count >= 4 else { throw BadResponse(description: "\(mode) needs a FILE") }
      let file = URL(fileURLWithPath: arguments[3])
      var request = URLRequest(url: url)
      request.httpMethod = "PUT"
      let response: HTTPURLResponse
      if mode == "stream-upload" {
        response = try await session.upload(for: request, fromFile: file).1
      } else {
        request.httpBodyStream = InputStream(url: file)
        response = try await session.data(for: request).1
      }
      guard response.statusCode == 201 || response.statusCode == 204 else {
        throw BadResponse(description: "status \(response.statusCode)")
      }
      moved = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
    default:
      throw BadResponse(description: "unknown mode \(mode)")
    }
    let peak = peakResidentMegabytes()
    print(
      String(format: "moved %d bytes; resident %.2f MB, peak %.2f MB, growth in MB: %.2f", moved, before, peak, peak - before))
    return 0
  } catch {
    FileHandle.standardError.write(Data("\(mode) failed: \(error)\n".utf8))
    return 1
  }
}

/// Resets the kernel's peak-resident mark to the current resident size, and returns that size.
func resetPeakResident() -> Double {
  try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  return residentMegabytes()
}

/// The peak resident size since the last reset (VmHWM).
func peakResidentMegabytes() -> Double {
  let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
  let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
  return (line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? .infinity) / 1024
}

func residentMegabytes() -> Double {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
  let pages = Double(statm.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0)
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// The per-request cost in one long-lived process, as multi-client.c measures libcurl's: 200
/// requests to warm up, then COUNT with CONCURRENCY in flight (or COUNT/BATCH batches of BATCH
/// started together). Prints the same line as multi-client.c.
///
/// Arguments: KIND ROOT.pem PINS.json URL COUNT CONCURRENCY [BATCH], KIND pinned,
/// pinned-executor (`data(for:)` from tasks that prefer `CNPinnedSession.executor`), exchange,
/// urlprotocol or urlsession.
func inProcess(arguments: [String]) async -> Int32 {
  guard let count = Int(arguments[4]), count > 0, let concurrency = Int(arguments[5]), concurrency > 0,
    let url = URL(string: arguments[3])
  else { return 2 }
  let batch = arguments.count > 6 ? Int(arguments[6]) ?? 0 : 0
  do {
    let (fetch, executor) = try makeClient(kind: arguments[0], root: arguments[1], pins: arguments[2], url: url)
    let clock = ContinuousClock()
    /// Runs `count` requests, `width` at a time; returns each one's latency in seconds.
    func run(_ count: Int, width: Int) async throws -> [Double] {
      let next = Counter()
      return try await withThrowingTaskGroup(of: [Double].self) { group in
        let requests: @Sendable () async throws -> [Double] = {
          var latencies: [Double] = []
          while next.take() < count {
            let started = monotonicSeconds()
            try await fetch()
            latencies.append(monotonicSeconds() - started)
          }
          return latencies
        }
        for _ in 0..<min(width, count) {
          // A preference only when there is one: a task added with `executorPreference: nil`
          // counts as preferring one, and each of its hops then looks it up under a lock.
          if let executor {
            group.addTask(executorPreference: executor, operation: requests)
          } else {
            group.addTask(operation: requests)
          }
        }
        return try await group.reduce(into: []) { $0 += $1 }
      }
    }
    _ = try await run(200, width: batch > 0 ? batch : concurrency)
    waitAtTheEndOfTheWarmUp()
    let started = clock.now
    let switched = contextSwitches()
    var samples: [Double] = []
    if batch > 0 {
      for _ in 0..<(count / batch) {
        let began = clock.now
        _ = try await run(batch, width: batch)
        samples.append(seconds(clock.now - began))
      }
    } else {
      samples = try await run(count, width: concurrency)
    }
    let total = seconds(clock.now - started)
    let requests = batch > 0 ? samples.count * batch : count
    let switchesPerRequest = Double(contextSwitches() - switched) / Double(requests)
    samples.sort()
    let prefix = batch > 0 ? "batch_" : ""
    print(
      String(
        format:
          "requests %d seconds %.6f per_request_us %.1f %@p50_us %.1f %@p99_us %.1f %@max_us %.1f switches_per_request %.2f",
        requests, total, total / Double(requests) * 1e6, prefix, samples[samples.count / 2] * 1e6, prefix,
        samples[min(samples.count - 1, samples.count * 99 / 100)] * 1e6, prefix, samples[samples.count - 1] * 1e6,
        switchesPerRequest))
    return 0
  } catch {
    FileHandle.standardError.write(Data("request failed: \(error)\n".utf8))
    return 1
  }
}

/// With `CNPINNING_BENCH_COUNT_FROM_MARK` set (scripts/instructions-per-request.py), says on
/// standard error that the warm-up has ended and waits for a line on standard input: the script
/// zeroes callgrind's counts of every thread meanwhile, so that the warm-up's connections and TLS
/// handshakes, of which a varying number race to a full handshake, are not counted.
/// multi-client.c does the same.
func waitAtTheEndOfTheWarmUp() {
  guard ProcessInfo.processInfo.environment["CNPINNING_BENCH_COUNT_FROM_MARK"] != nil else { return }
  FileHandle.standardError.write(Data("warm-up ended\n".utf8))
  _ = readLine()
}

/// Context switches of every thread of the process so far, voluntary and involuntary (what
/// multi-client.c prints beside its times, read the same way).
func contextSwitches() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_nvcsw + usage.ru_nivcsw
}

/// One pinned request for the server's real fields, then 100,000 HTTPURLResponse initialisations
/// with them; prints "per_request_us" (microseconds per initialisation), the in-process line's shape.
func responseFloor(arguments: [String]) async -> Int32 {
  guard let url = URL(string: arguments[2]) else { return 2 }
  do {
    let anchors = try CNCertificate.certificates(pemEncoded: String(contentsOfFile: arguments[0], encoding: .utf8))
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = .customAnchors(anchors)
    let manager = try CNPinningManager(contentsOf: URL(filePath: arguments[1], directoryHint: .notDirectory))
    let session = try CNPinnedSession(manager: manager, configuration: configuration)
    let (_, response) = try await session.data(from: url)
    var fields: [String: String] = [:]
    for case (let name as String, let value as String) in response.allHeaderFields { fields[name.lowercased()] = value }
    let rounds = 100_000
    let clock = ContinuousClock()
    var codes = 0
    let started = clock.now
    for _ in 0..<rounds {
      codes &+= HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/2", headerFields: fields)?.statusCode ?? 0
    }
    let each = seconds(clock.now - started) / Double(rounds) * 1e6
    guard codes == 200 &* rounds else { return 1 }
    print(
      String(format: "fields %d per_request_us %.2f p50_us %.2f p99_us %.2f max_us %.2f", fields.count, each, each, each, each))
    return 0
  } catch {
    FileHandle.standardError.write(Data("request failed: \(error)\n".utf8))
    return 1
  }
}

/// 20,000 round trips (after 2,000 to warm up) between a task and a thread that watches a locked
/// queue, yielding the processor, and resumes each continuation it finds.
func handoffFloor() async -> Int32 {
  // Unchecked Sendable: its value is behind a lock.
  final class Mailbox: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [CheckedContinuation<Void, Never>] = []
    func post(_ continuation: CheckedContinuation<Void, Never>) { lock.withLock { waiting.append(continuation) } }
    func take() -> [CheckedContinuation<Void, Never>] {
      lock.withLock {
        defer { waiting = [] }
        return waiting
      }
    }
  }
  let mailbox = Mailbox()
  let stop = StopFlag()
  let thread = Thread {
    while !stop.isSet {
      let taken = mailbox.take()
      if taken.isEmpty { sched_yield() } else { for continuation in taken { continuation.resume() } }
    }
  }
  thread.start()
  defer { stop.set() }
  let clock = ContinuousClock()
  var samples: [Double] = []
  for round in 0..<22_000 {
    let started = clock.now
    await withCheckedContinuation { mailbox.post($0) }
    if round >= 2_000 { samples.append(seconds(clock.now - started)) }
  }
  let total = samples.reduce(0, +)
  samples.sort()
  print(
    String(
      format: "round_trips %d per_request_us %.2f p50_us %.2f p99_us %.2f max_us %.2f", samples.count,
      total / Double(samples.count) * 1e6, samples[samples.count / 2] * 1e6, samples[samples.count * 99 / 100] * 1e6,
      samples[samples.count - 1] * 1e6))
  return 0
}

/// A flag one thread sets and another reads.
// Unchecked Sendable: its flag is behind a lock.
final class StopFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}

/// The monotonic clock in seconds, read as the C client reads it (`clock_gettime`): each
/// request timed with `ContinuousClock` and `Duration` cost this client about 470 instructions
/// of 128-bit arithmetic that the C client does not do, counted in its budget.
@Sendable func monotonicSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

@Sendable func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

do {
  let fetch = try makeClient(kind: arguments[1], root: arguments[2], pins: arguments[3], url: url).fetch
  if soak {
    try await run(fetch, count: 200)
    let before = residentMegabytes()
    try await run(fetch, count: count)
    let after = residentMegabytes()
    print(String(format: "resident %.2f MB -> %.2f MB, growth in MB: %.3f", before, after, after - before))
  } else {
    try await run(fetch, count: count)
  }
} catch {
  FileHandle.standardError.write(Data("request failed: \(error)\n".utf8))
  exit(1)
}
#else
print("The peer benchmark client runs on Linux.")
#endif
