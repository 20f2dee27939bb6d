import CNPinning
import CNPinningSession
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A service that calls one upstream through a pinned session, every INTERVAL seconds, and logs
// each answer or the reason a call was refused.
//
//   PinnedService PINS.json https://upstream.example/health [--cafile ROOT.pem] [--interval 10] [--count N]
//
// PINS.json is a CNPinning configuration (`cnpin pins HOST --document --format json` writes one).
// --cafile trusts only the anchors in ROOT.pem (a private PKI) instead of the system's.
// The exit status is 0 when every call succeeded, 1 when one failed, 2 for a usage error.

struct Options {
  var pins: URL
  var upstream: URL
  var anchors: URL?
  var interval: Double = 10
  var count: Int?

  init(_ arguments: [String]) throws(UsageError) {
    var positionals: [String] = []
    var anchors: String?
    var words = arguments[...]
    while let word = words.popFirst() {
      switch word {
      case "--cafile", "--interval", "--count":
        guard let value = words.popFirst() else { throw UsageError("\(word) needs a value") }
        switch word {
        case "--cafile": anchors = value
        case "--interval":
          guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
            throw UsageError("--interval takes seconds between 0 and 86400, not \(value)")
          }
          interval = seconds
        default:
          guard let count = Int(value), count > 0 else { throw UsageError("--count takes a positive number, not \(value)") }
          self.count = count
        }
      default:
        guard !word.hasPrefix("-") else { throw UsageError("unknown option \(word)") }
        positionals.append(word)
      }
    }
    guard positionals.count == 2 else { throw UsageError("give PINS.json and the upstream URL") }
    guard let upstream = URL(string: positionals[1]), upstream.scheme == "https", upstream.host != nil else {
      throw UsageError("the upstream must be an https:// URL, not \(positionals[1])")
    }
    pins = URL(fileURLWithPath: positionals[0])
    self.upstream = upstream
    self.anchors = anchors.map { URL(fileURLWithPath: $0) }
  }
}

struct UsageError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The upstream, called through one session for the life of the service (connections are reused).
struct Upstream {
  let session: CNPinnedSession
  let url: URL

  init(_ options: Options) throws {
    let manager = try CNPinningManager(contentsOf: options.pins)
    var configuration = CNPinnedSessionConfiguration()
    configuration.unpinnedHosts = .deny  // the upstream must be pinned: a typo in the file fails closed
    configuration.timeoutIntervalForRequest = 10
    if let anchors = options.anchors {
      configuration.trust = .customAnchors(
        try CNCertificate.certificates(pemEncoded: String(contentsOf: anchors, encoding: .utf8)))
    }
    session = try CNPinnedSession(manager: manager, configuration: configuration)
    url = options.upstream
  }

  /// One call: the status and size, or why it was refused.
  func call() async -> Result<String, CNPinnedSessionError> {
    do {
      let (data, response) = try await session.data(from: url)
      return .success("\(response.statusCode), \(data.count) bytes")
    } catch let error as CNPinnedSessionError {
      return .failure(error)
    } catch {
      return .failure(.transferFailed(host: url.host ?? "", reason: "\(error)"))
    }
  }
}

func log(_ line: String) {
  FileHandle.standardError.write(Data("\(ISO8601DateFormatter().string(from: Date())) \(line)\n".utf8))
}

let options: Options
do {
  options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
  log("usage: PinnedService PINS.json https://HOST/PATH [--cafile ROOT.pem] [--interval SECONDS] [--count N]: \(error)")
  exit(2)
}

let upstream: Upstream
do {
  upstream = try Upstream(options)
} catch {
  log("cannot start: \(error)")
  exit(2)
}

var failures = 0
var calls = 0
while options.count.map({ calls < $0 }) ?? true {
  calls += 1
  switch await upstream.call() {
  case .success(let summary): log("\(options.upstream): \(summary)")
  case .failure(let error):
    failures += 1
    log("\(options.upstream) refused: \(error)")
  }
  if options.count.map({ calls < $0 }) ?? true { try? await Task.sleep(for: .seconds(options.interval)) }
}
exit(failures == 0 ? 0 : 1)
