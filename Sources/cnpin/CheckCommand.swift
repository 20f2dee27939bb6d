import CNPinning
import CNPinningSession
import Foundation

/// `cnpin check --config FILE [HOST[:PORT] ...]`: does each host serve a chain the config accepts?
/// With `--chain FILE`, the same judgement offline, on a chain from a file.
enum CheckCommand {
  static let spec = ArgumentSpec(
    command: "check",
    forms: [[.option(.config), "[HOST[:PORT] ...]"], [.option(.config), .option(.chain), "[--chain PEM ...]"]],
    options: [
      .config, .chain, .host,
      .warnDays.explained(
        "also report what expires within N days: a certificate of a verified chain, a host's pins (expirationDate), the --policy's exp, and the CA catalogue's dated events that touch a host's pins (a pinned root leaving a store, a pinned family's last day, shorter leaves for leaf pins); exit 4 when all passed and that is all"
      ), .policy, .catalogue,
      .at.explained(
        "with --chain: judge as of DATE (YYYY-MM-DD or a time, UTC), certificates, the catalogue's dates and --warn-days alike"),
      .json,
    ] + NetworkOptions.all,
    positionals: 0...1000, positionalName: "HOST[:PORT]")

  static let help = Help.text(
    [spec],
    about: """
      Connects to every host the configuration pins (port 443), or to the hosts named, and reports
      PASS when the verified chain satisfies the pins, FAIL with the reason when it does not, and
      NOT PINNED for a named host that the configuration does not pin: connections to it would be
      allowed without pins (the configuration fails open for it).

      With --chain, nothing is connected to: each file's certificates (the leaf first, then the
      intermediates a server would send; the anchor may be left out) are verified against the
      system store or --cafile, for the host, exactly as a connection's would be, and judged the
      same way. This rehearses a CA's next hierarchy before it issues from it: a CA publishes its
      new intermediates and roots months ahead. The hosts are those named with --host (or as
      HOST[:PORT]), else every host of the configuration that the leaf is valid for.
      """,
    footer: """
      Exit status: 0 all PASS; 1 any FAIL or NOT PINNED; 2 bad configuration or usage; 3 network
      errors only; 4 all PASS but something expires within --warn-days.

      Examples:
        cnpin check --config Info.plist
        cnpin check --config pins.json api.example.com www.example.com:8443 --warn-days 60
        cnpin check --config pins.json --chain next-hierarchy.pem --host api.example.com
      """)

  struct Result: Encodable {
    let target: String
    let status: String
    let detail: String
    /// What expires within `--warn-days`; absent without it.
    var expiring: [ExpiryHorizon.Warning]?
  }

  static func run(_ words: [String]) async throws(CLIError) {
    let arguments = try spec.parse(words)
    guard let path = arguments.value(.config) else { throw .usage("missing --config FILE") }
    let document = try loadDocument(path)
    let manager = CNPinningManager(document: document)
    let network = try NetworkOptions(arguments)
    let horizon = try ExpiryHorizon(arguments)
    let catalogue = try CatalogueOption.catalogue(arguments)
    if arguments.value(.at) != nil, arguments.values(.chain).isEmpty {
      throw .usage("\(Option.at) judges a --chain offline; a live chain is verified now")
    }
    if arguments.value(.policy) != nil, horizon == nil { throw .usage("\(Option.policy) is read only for --warn-days") }
    let chainFiles = arguments.values(.chain)
    if chainFiles.isEmpty, !arguments.values(.host).isEmpty { throw .usage("\(Option.host) names the host of a --chain") }

    if horizon != nil { Output.error("note: --warn-days with the \(Output.value(catalogue.label))") }
    var results: [Result]
    if chainFiles.isEmpty {
      let session = try network.session(manager: manager)
      if arguments.positionals.isEmpty {
        Output.error(
          "cnpin: checking port 443 of each host the configuration pins, or the port --resolve names for it (name HOST:PORT to check another port)"
        )
      }
      // A host --resolve sends elsewhere is checked at the port it names, as curl connects there.
      let resolvedPorts = Dictionary(
        network.configuration.resolve.map { ($0.host.lowercased(), $0.port) }, uniquingKeysWith: { first, _ in first })
      let targets =
        arguments.positionals.isEmpty
        ? try document.entries.map { entry throws(CLIError) in
          try HostPort(
            resolvedPorts[entry.host.lowercased()].map { HostName.authority(entry.host, port: $0) }
              ?? HostName.authority(entry.host))
        }
        : try arguments.positionals.map { text throws(CLIError) in try HostPort(text) }
      results = []
      for target in targets {
        results.append(await check(target, manager: manager, session: session, horizon: horizon, catalogue: catalogue))
      }
    } else {
      let hosts = arguments.values(.host) + arguments.positionals
      results = []
      for file in chainFiles {
        results += try ChainRehearsal.check(
          file, hosts: hosts, document: document, manager: manager, configuration: network.configuration,
          horizon: horizon, catalogue: catalogue, at: try Clock.now(arguments))
      }
    }
    var policyWarnings: [ExpiryHorizon.Warning] = []
    if let horizon, let policy = arguments.value(.policy) { policyWarnings = try horizon.policy(at: policy) }
    if !policyWarnings.isEmpty {
      results.append(Result(target: arguments.value(.policy)!, status: "EXPIRING", detail: "", expiring: policyWarnings))
    }
    report(results, json: arguments.has(.json))
    let statuses = Set(results.map(\.status))
    if statuses.contains("FAIL") || statuses.contains("NOT PINNED") { throw .exit(ExitStatus.failed) }
    if statuses.contains("ERROR") { throw .exit(ExitStatus.network) }
    if results.contains(where: { !($0.expiring ?? []).isEmpty }) { throw .exit(ExitStatus.expiring) }
  }

  private static func report(_ results: [Result], json: Bool) {
    if json {
      Output.print(Output.json(results))
      return
    }
    for result in results {
      if result.status != "EXPIRING" {
        Output.print("\(result.status.padding(toLength: 10, withPad: " ", startingAt: 0)) \(result.target)  \(result.detail)")
      }
      for warning in result.expiring ?? [] {
        Output.print("\("WARNING".padding(toLength: 10, withPad: " ", startingAt: 0)) \(result.target)  \(warning.line)")
      }
    }
  }

  private static func check(
    _ target: HostPort, manager: CNPinningManager, session: CNPinnedSession, horizon: ExpiryHorizon?,
    catalogue: CACatalogue
  ) async -> Result {
    let configuration = manager.configuration(for: target.host)?.configuration
    guard configuration != nil else { return notPinned(target.host, target: target.description, manager: manager) }
    do {
      let event = try await session.probe(host: target.host, port: target.port)
      var result = judged(event.pinning, chain: event.verifiedChain, target: target.description)
      result.expiring = horizon.map {
        $0.certificates(event.verifiedChain) + $0.pins(of: target.host, configuration)
          + $0.calendar(of: target.host, configuration, catalogue: catalogue)
      }
      return result
    } catch let failure as CNPinnedSessionError {
      let status = CLIError.from(failure).status == ExitStatus.failed ? "FAIL" : "ERROR"
      return Result(target: target.description, status: status, detail: failure.description)
    } catch {
      return Result(target: target.description, status: "ERROR", detail: "\(error)")
    }
  }

  /// NOT PINNED for a host the configuration leaves unpinned, with the near miss when there is one.
  static func notPinned(_ host: String, target: String, manager: CNPinningManager) -> Result {
    Result(
      target: target, status: "NOT PINNED",
      detail: "the configuration does not pin this host; connections to it are allowed without pins"
        + (manager.nearMiss(for: host).map { " (\($0))" } ?? ""))
  }

  /// PASS for an accepted chain, FAIL otherwise, saying which chain matched or why none did.
  static func judged(_ pinning: CNPinningResult?, chain: [CNCertificate], target: String) -> Result {
    switch pinning {
    case .accepted(let match)?:
      let names = CertificateChain(leafFirst: chain).rootFirst.map { Output.value($0.displayName) }.joined(separator: " → ")
      return Result(target: target, status: "PASS", detail: "\(describeMatch(match)) matches [\(names)]")
    case .rejected(let failure)?, .reportOnly(let failure)?:
      return Result(target: target, status: "FAIL", detail: "\(failure)")
    case .notPinned?:
      return Result(target: target, status: "NOT PINNED", detail: "the configuration does not pin this host")
    case nil:
      return Result(target: target, status: "FAIL", detail: "the verified chain was not judged by pins")
    }
  }
}
