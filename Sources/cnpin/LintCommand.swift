import CNPinning
import CNPinningSession
import Foundation

/// `cnpin lint FILE`: static findings that predict failing open or locking users out.
enum LintCommand {
  static let spec = ArgumentSpec(
    command: "lint",
    forms: [["FILE"], ["FILE", .option(.against)]],
    options: [
      .trust, .cafile.explained("check root links against these anchors instead"),
      .futureAnchors.explained(
        "roots stores are about to carry (a CA's new root, the next CA's): a chain whose root is one of them is a rehearsed backup, not \"never matches\""
      ),
      .rehearse,
      .host.explained(
        "a host the app talks to (repeatable): an error when it is not pinned but a pinned domain is a small edit away (a typo fails open), a warning when it is not pinned at all"
      ),
      .stamp, .warnDays, .policy.explained("an enterprise policy file for --warn-days"), .catalogue,
      .at.explained("judge as of DATE (YYYY-MM-DD or a time, UTC): expiry, rehearsal, --warn-days"), .against,
      .chain.explained("with --against: certificates the export resolved CA links against (repeatable)"), .json,
    ],
    positionals: 1...1,
    positionalName: "FILE")

  static let help = Help.text(
    [spec],
    about: """
      Reports, with the path of each element: errors (the file does not load: invalid host names,
      unknown keys or link types, empty values, duplicate hosts, an empty configuration …; a chain
      whose root links match no trust anchor, with the closest anchors and a link that would match
      them; a chain the host's own SPKI or certificate pins refuse, when every pinned key is one lint
      knows) and warnings (suffix links without a dot boundary, prefixes so short they accept almost
      any CA, exact links on CA certificates and on the leaf's CN, hosts with a single chain and no
      backup, one-link chains, a single NSPinnedDomains identity, NSPinnedCAIdentities that are no
      anchor's key) and notes (each chain's shapes, roots about to be trusted, hosts that shadow a
      parent domain's includesSubdomains pins, one-letter prefixWithNumber).

      What the certificates a host serves expire on is for `cnpin check --warn-days` (live, or with
      --chain), which verifies them.
      """,
    footer: """
      Exit status: 2 when there are errors; 4 when something expires within --warn-days; 1 when
      --against finds drift; 0 otherwise (warnings included).

      Examples:
        cnpin lint Info.plist
        cnpin lint pins.json --cafile corporate-roots.pem
        cnpin lint pins.json --host api.example.com --host auth.example.com
      """)

  static let privatePKIHint =
    "hint: root links were checked against the system's trust store; for a private CA, lint against its roots with --cafile ROOTS.pem (or skip the check with --trust none)"

  /// The trust root links are checked against; nil skips the check.
  static func trust(_ arguments: Arguments) throws(CLIError) -> CNTrust? {
    switch (arguments.value(.trust), arguments.value(.cafile)) {
    case (_?, _?): throw .usage("give --trust or --cafile, not both")
    case (nil, let path?): return try NetworkOptions.anchors(inPEMFile: path)
    case ("none"?, nil): return nil
    case ("system"?, nil), (nil, nil): return .system
    case (let other?, nil): throw .usage("\(Option.trust) takes system or none, not \"\(other)\"")
    }
  }

  /// The anchors of `trust`, for the root-link checks.
  static func anchors(of trust: CNTrust) throws(CLIError) -> [CNCertificate] {
    do {
      return try trust.anchorCertificates()
    } catch {
      throw .configuration("cannot list the trust anchors: \(error); pass --cafile PEM or --trust none")
    }
  }

  struct Report: Encodable {
    let file: String
    let findings: [CNLintFinding]
    let errors: Int
    let warnings: Int
    let notes: Int
    /// With `--warn-days`, what expires within it.
    let expiring: [ExpiryHorizon.Warning]?
    /// With `--rehearse` or `--warn-days`, the CA catalogue used.
    let catalogue: String?
  }

  static func run(_ words: [String]) throws(CLIError) {
    let arguments = try spec.parse(words)
    let path = arguments.positionals[0]
    if let exported = arguments.value(.against) {
      try drift(path, against: exported, arguments)
      return
    }
    if arguments.value(.chain) != nil { throw .usage("\(Option.chain) is read only with --against") }
    let data = try InputFile.read(path, path)
    let trust = try trust(arguments)
    let future = try arguments.value(.futureAnchors).map { path throws(CLIError) -> [CNCertificate] in
      try ChainFile.read(path, option: .futureAnchors)
    }
    let catalogue = try CatalogueOption.catalogue(arguments)
    let now = try Clock.now(arguments)
    let findings = CNConfigurationLinter.lint(
      data: data, source: path, now: now, trustAnchors: try trust.map { trust throws(CLIError) in try anchors(of: trust) },
      futureAnchors: future ?? [], hosts: arguments.values(.host), rehearse: arguments.has(.rehearse),
      catalogue: catalogue)
    let expiring = try expiringSoon(data, path: path, arguments)
    let usesCatalogue = arguments.has(.rehearse) || arguments.value(.warnDays) != nil
    // The summary counts what was printed: the --warn-days warnings are warnings too.
    let count = { (severity: CNLintFinding.Severity) in
      findings.filter { $0.severity == severity }.count + (severity == .warning ? expiring?.count ?? 0 : 0)
    }
    if arguments.has(.json) {
      Output.print(
        Output.json(
          Report(
            file: path, findings: findings, errors: count(.error), warnings: count(.warning), notes: count(.note),
            expiring: expiring, catalogue: usesCatalogue ? catalogue.label : nil)))
    } else {
      if usesCatalogue { Output.print("\(path): note: with the \(Output.value(catalogue.label))") }
      for finding in findings { Output.print("\(path): \(finding)") }
      for warning in expiring ?? [] { Output.print("\(path): warning: \(warning.line)") }
      Output.print("\(path): \(count(.error)) error(s), \(count(.warning)) warning(s), \(count(.note)) note(s)")
      if trust == .system, findings.contains(where: CNConfigurationLinter.isUnknownRoot) {
        Output.print(privatePKIHint)
      }
    }
    if count(.error) > 0 { throw .exit(ExitStatus.usage) }
    if let stamp = arguments.value(.stamp) { try writeStamp(stamp, linted: path) }
    if !(expiring ?? []).isEmpty { throw .exit(ExitStatus.expiring) }
  }

  /// `--against`: the file exported again in the exported file's format, and the differences.
  private static func drift(_ path: String, against exported: String, _ arguments: Arguments) throws(CLIError) {
    let data = try InputFile.read(exported, "\(Option.against) \(exported)")
    let actual = try ExportedPins.read(data, path: exported)
    // The export's own inputs, from its header, unless given here.
    let inputs = ExportInputs.read(fromExported: String(decoding: data, as: UTF8.self))
    let arguments = try inputs?.applied(to: arguments, exported: exported) ?? arguments
    let export = PinExport(
      try loadDocument(path), format: actual.format, pool: try CertificatePool(arguments),
      catalogue: try CatalogueOption.catalogue(arguments))
    let lines = ExportedPins(export).drift(from: actual, file: path, against: exported)
    for line in lines { Output.print("\(exported): drift: \(line)") }
    guard lines.isEmpty else {
      throw .failed("\(exported) has drifted from \(path) (\(lines.count) difference(s)); export it again with cnpin convert")
    }
    Output.print("\(exported): no drift from \(path) (\(actual.format.title), \(actual.hosts.count) host(s))")
  }

  /// With `--warn-days`: the pins of the file, and the `--policy`, that expire within it.
  private static func expiringSoon(_ data: Data, path: String, _ arguments: Arguments) throws(CLIError)
    -> [ExpiryHorizon.Warning]?
  {
    guard let horizon = try ExpiryHorizon(arguments) else {
      if arguments.value(.policy) != nil { throw .usage("\(Option.policy) is read only for --warn-days") }
      return nil
    }
    // A file that does not load has its errors among the findings; its dates are not read.
    let base = URL(fileURLWithPath: path).deletingLastPathComponent()
    let entries = (try? CNPinningDocument(data: data, source: path, baseDirectory: base))?.entries ?? []
    let catalogue = try CatalogueOption.catalogue(arguments)
    var warnings = entries.flatMap {
      horizon.pins(of: $0.host, $0.configuration) + horizon.calendar(of: $0.host, $0.configuration, catalogue: catalogue)
    }
    if let policy = arguments.value(.policy) { warnings += try horizon.policy(at: policy) }
    return warnings
  }

  /// The file the build-tool plugin declares as its command's output: a Swift source the target
  /// compiles, so that the build runs the lint and fails when it reports an error.
  static func writeStamp(_ stamp: String, linted path: String) throws(CLIError) {
    let name = URL(fileURLWithPath: path).lastPathComponent.unicodeScalars.map {
      $0.isASCII && $0.value >= 0x20 ? String($0) : "?"
    }
    .joined()
    do {
      try Data("// cnpin lint found no errors in \(name).\n".utf8).write(to: URL(fileURLWithPath: stamp), options: .atomic)
    } catch {
      throw .configuration("cannot write \(stamp): \(error.localizedDescription)")
    }
  }
}
