import CNPinning
import CNPinningSession
import Foundation

/// `cnpin check --config FILE [HOST[:PORT] ...]`: does each host serve a chain the config accepts?
enum CheckCommand {
  static let spec = ArgumentSpec(
    flags: ["--json", "--help", "-h"], options: NetworkOptions.options.union(["--config"]),
    positionals: 0...1000, positionalName: "HOST[:PORT]")

  static let help = """
    Usage: cnpin check --config FILE [HOST[:PORT] ...] [--cafile PEM] [--resolve HOST:PORT:ADDRESS]
                       [--timeout SECONDS] [-x PROXY] [--json]

    Connects to every host the configuration pins (port 443), or to the hosts named, and reports
    PASS when the verified chain satisfies the pins, FAIL with the reason when it does not, and
    NOT PINNED for a named host that the configuration does not pin: connections to it would be
    allowed without pins (the configuration fails open for it).

    Network options:
    \(NetworkOptions.help)

    Exit status: 0 all PASS; 1 any FAIL or NOT PINNED; 2 bad configuration; 3 network errors only.

    Examples:
      cnpin check --config Info.plist
      cnpin check --config pins.json api.example.com www.example.com:8443
    """

  struct Result: Encodable {
    let target: String
    let status: String
    let detail: String
  }

  static func run(_ words: [String]) async throws(CLIError) {
    let arguments = try spec.parse(words)
    guard let path = arguments.value("--config") else { throw .usage("missing --config FILE") }
    let document = try loadDocument(path)
    let manager = CNPinningManager(document: document)
    let network = try NetworkOptions(arguments)
    let session = try network.session(manager: manager)
    let targets =
      arguments.positionals.isEmpty
      ? try document.entries.map { entry throws(CLIError) in
        try HostPort(HostName.authority(entry.host))
      }
      : try arguments.positionals.map { text throws(CLIError) in try HostPort(text) }

    var results: [Result] = []
    for target in targets {
      results.append(await check(target, manager: manager, session: session))
    }
    if arguments.has("--json") {
      Output.print(Output.json(results))
    } else {
      for result in results {
        Output.print("\(result.status.padding(toLength: 10, withPad: " ", startingAt: 0)) \(result.target)  \(result.detail)")
      }
    }
    let statuses = Set(results.map(\.status))
    if statuses.contains("FAIL") || statuses.contains("NOT PINNED") { throw .exit(ExitStatus.failed) }
    if statuses.contains("ERROR") { throw .exit(ExitStatus.network) }
  }

  private static func check(_ target: HostPort, manager: CNPinningManager, session: CNPinnedSession) async -> Result {
    guard manager.configuration(for: target.host) != nil else {
      return Result(
        target: target.description, status: "NOT PINNED",
        detail: "the configuration does not pin this host; connections to it are allowed without pins")
    }
    do {
      let event = try await session.probe(host: target.host, port: target.port)
      guard case .accepted(let match)? = event.pinning else {
        return Result(target: target.description, status: "FAIL", detail: "the verified chain was not judged by pins")
      }
      let chain = event.verifiedChain.reversed().map { $0.commonName ?? "?" }.joined(separator: " → ")
      return Result(
        target: target.description, status: "PASS",
        detail: "\(describeMatch(match)) matches [\(chain)]")
    } catch let failure as CNProbeError {
      let status = CLIError.from(failure.error).status == ExitStatus.failed ? "FAIL" : "ERROR"
      return Result(target: target.description, status: status, detail: failure.error.description)
    } catch {
      return Result(target: target.description, status: "ERROR", detail: "\(error)")
    }
  }
}
