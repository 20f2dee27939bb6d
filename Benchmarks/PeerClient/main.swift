#if os(Linux)
import CNPinning
import CNPinningSession
import Foundation
import FoundationNetworking

// One benchmark client process: COUNT GET requests to URL, CONCURRENCY at a time, through a pinned
// CNPinnedSession or Foundation's URLSession. Timed from outside as a whole process by
// CNPinningPeerBenchmarks. Exits 1 on the first failed request.
//
// Usage: CNPinningPeerClient pinned ROOT.pem PINS.json URL COUNT CONCURRENCY [--soak]
//        CNPinningPeerClient urlprotocol ROOT.pem PINS.json URL COUNT CONCURRENCY   (URLSession, .cnPinned)
//        CNPinningPeerClient urlsession - - URL COUNT CONCURRENCY
// With --soak: 200 requests to warm up, then COUNT more; prints the growth of resident memory.
//        CNPinningPeerClient stream-download ROOT.pem PINS.json URL            bytes(for:), counted
//        CNPinningPeerClient stream-upload ROOT.pem PINS.json URL FILE         PUT upload(for:fromFile:)
//        CNPinningPeerClient stream-upload-stream ROOT.pem PINS.json URL FILE  PUT with httpBodyStream
// The stream modes print the bytes moved and the peak resident growth while they moved.

let arguments = CommandLine.arguments
if arguments.count >= 5, arguments[1].hasPrefix("stream-") {
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

func makeFetch() throws -> Fetch {
  if arguments[1] == "urlsession" { return urlSessionFetch(URLSession(configuration: .default)) }
  let anchors = try CNCertificate.certificates(pemEncoded: String(contentsOfFile: arguments[2], encoding: .utf8))
  let manager = try CNPinningManager(contentsOf: URL(filePath: arguments[3], directoryHint: .notDirectory))
  var configuration = CNPinnedSessionConfiguration()
  configuration.trust = .customAnchors(anchors)
  configuration.unpinnedHosts = .deny
  if arguments[1] == "urlprotocol" {
    return urlSessionFetch(URLSession(configuration: try .cnPinned(manager: manager, configuration: configuration)))
  }
  let session = try CNPinnedSession(manager: manager, configuration: configuration)
  return {
    let (data, response) = try await session.data(from: url)
    guard response.statusCode == 200, !data.isEmpty else { throw BadResponse(description: "status \(response.statusCode)") }
  }
}

func urlSessionFetch(_ session: URLSession) -> Fetch {
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

do {
  let fetch = try makeFetch()
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
