// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin check")
struct CheckCommandTests {
  @Test func checkPasses() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      ["check", "--config", try fixture.configuration(), "--cafile", fixture.caFile, "api.test:\(fixture.genuine.port)"]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(
      run.stdout.hasPrefix(
        "PASS       api.test:\(fixture.genuine.port)  chain 0 of api.test matches [Test Root X1 → R11 → api.test]"))
  }

  @Test func checkFailsForARogueChainAndForUnpinnedHosts() async throws {
    let fixture = try Fixture()
    let arguments =
      [
        "check", "--config", try fixture.configuration(), "--cafile", fixture.caFile, "api.test:\(fixture.rogue.port)",
        "other.test:\(fixture.genuine.port)", "--json",
      ]
      + fixture.resolve(fixture.rogue) + fixture.resolve(fixture.genuine, "other.test")
    let run = try await cnpin(arguments)
    #expect(run.status == 1)
    let results = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: String]]
    #expect(results?.map { $0["status"] } == ["FAIL", "NOT PINNED"])
    #expect(results?.first?["detail"]?.contains("Pin mismatch for api.test") == true)
    #expect(fixture.rogue.requests.isEmpty)
  }

  @Test func checkWithoutHostsChecksEveryPinnedHostAndReportsNetworkErrors() async throws {
    let fixture = try Fixture()
    // api.test is sent to a closed port: a network error only, exit 3.
    let run = try await cnpin([
      "check", "--config", try fixture.configuration(), "--cafile", fixture.caFile, "--resolve", "api.test:443:127.0.0.1",
      "--timeout", "5",
    ])
    #expect(run.status == 3, "\(run.stdout)")
    #expect(run.stdout.hasPrefix("ERROR      api.test:443"))
  }

  @Test func checkRefusesABadConfiguration() async throws {
    let directory = try TemporaryDirectory()
    let run = try await cnpin(["check", "--config", try directory.file("bad.json", #"{"PinnedDomains": {}}"#)])
    #expect(run.status == 2)
    #expect(run.stderr.contains("PinnedDomains is empty"))
  }

  /// Without hosts named, each pinned host is checked at the port `--resolve` names for it, as
  /// curl connects there (before: port 443 always, a network error).
  @Test func checkWithoutHostsUsesThePortResolveNames() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      ["check", "--config", try fixture.configuration(), "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.hasPrefix("PASS       api.test:\(fixture.genuine.port)"), "\(run.stdout)")
  }
}
#endif
