#if os(Linux)
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation

/// Sequential requests, each on a new TLS connection, to a loopback server: pinned against the
/// same session with pinning off.
enum SessionBenchmark {
  static func run() async throws -> Outcome {
    let pki = try TestPKI(root: "Bench Root X1")
    let root = pki.root
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.keepAlive = false  // every request opens a new connection and runs a full handshake
    let server = try LocalTLSServer.start(setup)
    defer { server.stop() }
    var configuration = CNPinnedSessionConfiguration()
    configuration.resolve = [CNHostOverride(host: "api.test", port: server.port, address: "127.0.0.1")]
    let manager = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([
        CNChain([
          CNChainLink(.prefixWithNumber, "Bench Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
        ])
      ])
    ])
    configuration.trust = .customAnchors([root.certificate])
    // One session, with pinning switched on and off between requests: two sessions would differ
    // by where their network threads run (an A/A run of two unpinned sessions differed by ±10 %).
    let session = try CNPinnedSession(manager: manager, configuration: configuration)
    let url = server.url("/", hostName: "api.test")

    func time(pinning: Bool) async throws -> Double {
      session.manager = pinning ? manager : nil
      let start = DispatchTime.now().uptimeNanoseconds
      _ = try await session.data(from: url)
      return Double(DispatchTime.now().uptimeNanoseconds - start)
    }
    // Requests alternate one by one (order swapped every pair), so drift in the machine's speed
    // affects both sides alike; each side reports its median request time.
    var pinnedTimes: [Double] = []
    var unpinnedTimes: [Double] = []
    for index in 0..<1600 {
      if index % 2 == 0 {
        pinnedTimes.append(try await time(pinning: true))
        unpinnedTimes.append(try await time(pinning: false))
      } else {
        unpinnedTimes.append(try await time(pinning: false))
        pinnedTimes.append(try await time(pinning: true))
      }
    }
    pinnedTimes.removeFirst(100)
    unpinnedTimes.removeFirst(100)
    let pinnedTime = Measure.median(pinnedTimes)
    let unpinnedTime = Measure.median(unpinnedTimes)
    // The target is a throughput ratio (pinned / unpinned) of at least 0.95, i.e. a time ratio
    // (pinned / unpinned) of at most 1 / 0.95.
    let throughputRatio = unpinnedTime / pinnedTime
    return Outcome(
      name:
        "pinned vs unpinned requests, new connection each (throughput ratio \(String(format: "%.3f", throughputRatio)), target ≥ 0.95)",
      detail: "\(Measure.format(pinnedTime)) vs \(Measure.format(unpinnedTime)) per request",
      ratio: pinnedTime / unpinnedTime, target: 1 / 0.95)
  }
}
#endif
