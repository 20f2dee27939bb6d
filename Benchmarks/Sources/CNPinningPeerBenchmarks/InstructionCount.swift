#if os(Linux)
import CNPinningTestKit
import Foundation

/// Instructions per request, counted by valgrind's callgrind beside the times: counts do not move
/// with what else the machine is doing, so a ratio of counts says what a ratio of times on a busy
/// two-core VM cannot. One request's count is the difference between a run of `low` and one of
/// `high` requests (start-up and warm-up cancel out) over `high - low`; every thread is counted,
/// the kernel is not (a system call or a cache miss costs more than its instructions say). The
/// runs are 1,000 requests apart: a connection that resumed its TLS session in one run and made
/// a full handshake in the other moves a count by about 10,000 at this spread (by 40,000 at 300).
/// `scripts/instructions-per-request.py` breaks a count down by library and part.
struct InstructionCounter {
  let low: Int
  let high: Int
  /// The Swift client without its DWARF 5 debug information, which valgrind 3.19 cannot read.
  private let strippedClient: String
  private let valgrind: String
  private let directory: URL

  /// Nil, saying why, when valgrind or strip is missing.
  init?(client: String, directory: URL, low: Int = 100, high: Int = 1100) {
    let tools = ["valgrind", "strip"].map { tool in
      ["/usr/bin", "/usr/local/bin"].map { "\($0)/\(tool)" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }
    guard tools.allSatisfy({ $0 != nil }) else {
      print("note: instruction counts skipped: valgrind is not installed (Debian: apt-get install valgrind)")
      return nil
    }
    self.directory = directory
    valgrind = tools[0]!
    self.low = low
    self.high = high
    strippedClient = directory.appendingPathComponent("client-for-valgrind").path
    do {
      _ = try timed([tools[1]!, "--strip-debug", "-o", strippedClient, client])
    } catch {
      print("note: instruction counts skipped: \(error)")
      return nil
    }
  }

  /// The command for the Swift client, with the copy valgrind can read.
  func swiftClient(_ command: [String]) -> [String] { [strippedClient] + command.dropFirst() }

  /// Instructions per request of `command(count)`, from runs of `runs` requests.
  func perRequest(runs: (low: Int, high: Int), _ command: (Int) -> [String]) throws -> Double {
    let out = directory.appendingPathComponent("callgrind.out").path
    var totals: [Double] = []
    for count in [runs.low, runs.high] {
      _ = try timed([valgrind, "--tool=callgrind", "--callgrind-out-file=\(out)"] + command(count))
      let text = try String(contentsOfFile: out, encoding: .utf8)
      guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("totals:") || $0.hasPrefix("summary:") }),
        let total = line.split(separator: " ").last.flatMap({ Double($0) })
      else { throw TestKitError(message: "callgrind wrote no total to \(out)") }
      totals.append(total)
    }
    return (totals[1] - totals[0]) / Double(runs.high - runs.low)
  }
}
#endif
