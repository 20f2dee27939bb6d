#if os(Linux)
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation

// Soak: many pinned HTTPS requests against loopback servers, half accepted and half rejected by
// the pins, each on a new TLS connection. Prints resident memory growth; under LeakSanitizer or
// valgrind it doubles as the leak check.
//
// Usage: CNPinningSoak [REQUESTS] [MAX_GROWTH_MB]   (0: no memory target, e.g. under a sanitizer)

let arguments = CommandLine.arguments
guard let requests = Int(arguments.count > 1 ? arguments[1] : "10000"), requests > 0,
  let maximumGrowth = Double(arguments.count > 2 ? arguments[2] : "5")
else {
  FileHandle.standardError.write(Data("usage: CNPinningSoak [REQUESTS] [MAX_GROWTH_MB]\n".utf8))
  exit(2)
}

func residentMegabytes() -> Double {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
  let pages = Double(statm.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0)
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

do {
  let pki = try TestPKI(root: "Soak Root X1")
  let root = pki.root
  let genuine = pki.leaf
  let roguePKI = try TestPKI(root: "Rogue Root")
  let rogue = roguePKI.leaf
  // The servers run in this process; they keep no request log, so what grows is the client's.
  var genuineSetup = LocalTLSServer.Configuration(identity: genuine)
  genuineSetup.keepAlive = false
  genuineSetup.recordsRequests = false
  var rogueSetup = LocalTLSServer.Configuration(identity: rogue)
  rogueSetup.recordsRequests = false
  let genuineServer = try LocalTLSServer.start(genuineSetup)
  let rogueServer = try LocalTLSServer.start(rogueSetup)
  defer {
    genuineServer.stop()
    rogueServer.stop()
  }
  var configuration = CNPinnedSessionConfiguration()
  configuration.resolve = [
    CNHostOverride(host: "api.test", port: genuineServer.port, address: "127.0.0.1"),
    CNHostOverride(host: "api.test", port: rogueServer.port, address: "127.0.0.1"),
  ]
  let manager = try CNPinningManager(configuration: [
    "api.test": CNConfiguration([
      CNChain([
        CNChainLink(.prefixWithNumber, "Soak Root X"), CNChainLink(.prefixWithNumber, "R"), CNChainLink(.exact, "api.test"),
      ])
    ])
  ])
  configuration.trust = .customAnchors([root.certificate, roguePKI.root.certificate])
  let session = try CNPinnedSession(manager: manager, configuration: configuration)
  let accepted = genuineServer.url("/", hostName: "api.test")
  let rejected = rogueServer.url("/", hostName: "api.test")

  func round(_ count: Int) async throws -> (accepted: Int, rejected: Int) {
    var outcome = (accepted: 0, rejected: 0)
    for index in 0..<count {
      if index % 2 == 0 {
        _ = try await session.data(from: accepted)
        outcome.accepted += 1
      } else {
        do {
          _ = try await session.data(from: rejected)
          print("error: the rogue server was accepted")
          exit(1)
        } catch let error as CNPinnedSessionError where error.code == .pinMismatch {
          outcome.rejected += 1
        }
      }
    }
    return outcome
  }

  let warmUp = min(200, requests)
  _ = try await round(warmUp)
  let before = residentMegabytes()
  let started = Date()
  let outcome = try await round(requests)
  let after = residentMegabytes()
  let growth = after - before
  let met = maximumGrowth == 0 || growth < maximumGrowth
  let verdict =
    maximumGrowth == 0 ? "(no target)" : String(format: "(target < %.1f MB) %@", maximumGrowth, met ? "MET" : "MISSED")
  print(
    String(
      format: "soak: %d requests (%d accepted, %d rejected) in %.1f s; resident memory %.1f MB → %.1f MB, growth %.2f MB %@",
      requests, outcome.accepted, outcome.rejected, Date().timeIntervalSince(started), before, after, growth, verdict))
  print("server handshakes: genuine \(genuineServer.handshakes), rogue \(rogueServer.handshakes + rogueServer.failedHandshakes)")
  exit(met ? 0 : 1)
} catch {
  print("soak failed: \(error)")
  exit(2)
}
#else
print("The soak run on Linux (OpenSSL and libcurl).")
#endif
