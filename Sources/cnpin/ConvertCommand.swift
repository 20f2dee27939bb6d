import CNPinning
import Foundation

/// `cnpin convert FILE --to plist|json|nspinneddomains|nsc|okhttp|trustkit`, and
/// `cnpin convert FILE --from trustkit|nspinneddomains|nsc|okhttp`.
enum ConvertCommand {
  static let spec = ArgumentSpec(
    command: "convert",
    forms: [["FILE", .option(.to)], ["FILE", .option(.from)]],
    options: [
      .to, .from, .output.explained("write to OUTPUT instead of standard output"),
      .chain.explained(
        "certificates to resolve CA links against (repeatable): a CA's next intermediates, or a chain from `cnpin pins HOST --format pem`"
      ),
      .cafile.explained("anchors to resolve root links against, instead of the system store"), .trust, .catalogue, .force,
    ],
    positionals: 1...1,
    positionalName: "FILE")

  static let help = Help.text(
    [spec],
    about: """
      Reads a configuration (property list or JSON), validates it like the library does, and writes
      it (to standard output, or OUTPUT) in the format --to names.

      nspinneddomains, nsc, okhttp and trustkit pin keys, not names: each chain's CA links (every
      chain: the primary and its backups) become the SPKI SHA-256 of the CA certificates that match
      them among the --chain files, the anchors (--cafile, else the system store) and, for Let's
      Encrypt and the other catalogued CAs, every current and announced backup member of a rotating
      family (YR1, YR2 and YR3 for prefixWithNumber "YR"). Where a rotating family's keys are not all
      known, only the chain's anchor keys are exported. A host that pins keys (spkiPins) beside its
      chains exports those keys alone: every chain CNPinning accepts carries one, and the chains' CA
      keys would let in chains they refuse; the chain names are then not carried, and it says so.
      Subdomain rules, expiry dates, report-only and the report URI go where the format has them.
      Each output names the key that rotates soonest and the inputs it was made from.

      An export never accepts what the configuration refuses. What a format cannot carry (a leaf
      rule, a .domain leaf rule on the domain itself, a whole-certificate pin, key pins of several
      scopes, a CN link no certificate given matches, a host left with a single key, report-only
      pins outside TrustKit, a host TrustKit's reader refuses) is reported on standard error with
      the host's path, the exit status is 1, and nothing is written unless --force.
      `cnpin lint FILE --against OUTPUT` reports later drift between the two.

      --from reads pins another library holds (what `lint --against` reads, the format checked
      against the content) and writes them as a CNPinning configuration (--to json, the default,
      or plist): each host's SPKI SHA-256 keys (NSPinnedDomains' CA and leaf identities as ca and
      leaf keys, the others' as any), its subdomain rule, and TrustKit's expiry (the start of that
      day, UTC), report-only and first https report URI; an Android expiry is read the same way.
      OkHttp's keys for a host include those of each **. pattern above it, as OkHttp checks them.
      What the file holds that the configuration cannot (what lint reports as not modelled, a host
      with a single key, an unpinned host under a pinned one, a second report URI) is named with
      its line on standard error and the exit status is 1; a host whose pins would change is left
      out, and the rest is written. Then `cnpin pins HOST --add-to OUTPUT` adds a host's CN chain.
      """,
    footer: """
      Examples:
        cnpin convert Info.plist --to json -o pins.json
        cnpin convert pins.json --to nsc -o app/src/main/res/xml/network_security_config.xml
        cnpin convert pins.json --to okhttp --chain next-ca.pem
        cnpin convert Info.plist --from trustkit -o pins.json
      """)

  static func run(_ words: [String]) throws(CLIError) {
    let arguments = try spec.parse(words)
    if let from = arguments.value(.from) {
      try importPins(arguments.positionals[0], from: from, arguments)
      return
    }
    guard let formatName = arguments.value(.to) else {
      throw .usage("missing --to plist|json|nspinneddomains|nsc|okhttp|trustkit, or --from trustkit|nspinneddomains|nsc|okhttp")
    }
    let path = arguments.positionals[0]
    if let keyFormat = PinFormat(rawValue: formatName) {
      try export(path, as: keyFormat, arguments)
      return
    }
    guard let format = CNPinningDocument.Format(rawValue: formatName) else { throw .usage(Help.refusal(.to, formatName)) }
    for option in [Option.chain, .cafile, .trust] where !arguments.values(option).isEmpty {
      throw .usage("\(option) is read only for the key formats (\(PinFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    let document = try loadDocument(path)
    for warning in document.warnings { Output.error("warning: \(warning)") }
    try write(document.encoded(as: format), arguments)
  }

  /// The export to a key format: the file, then the findings on standard error; exit 1 when
  /// something could not be carried.
  private static func export(_ path: String, as format: PinFormat, _ arguments: Arguments) throws(CLIError) {
    let document = try loadDocument(path)
    for warning in document.warnings { Output.error("warning: \(warning)") }
    let catalogue = try CatalogueOption.catalogue(arguments)
    let export = PinExport(document, format: format, pool: try CertificatePool(arguments), catalogue: catalogue)
    Output.error("note: keys of renaming CAs from the \(Output.value(catalogue.label))")
    let inputs = ExportInputs(arguments)
    let text = PinExportWriter.text(export, source: URL(fileURLWithPath: path).lastPathComponent, inputs: inputs)
    // A file that would accept what the configuration refuses, or leave a host unpinned, is not
    // written unless asked for.
    if export.isComplete || arguments.has(.force) { try write(Data(text.utf8), arguments) }
    if format == .nsPinnedDomains { Output.error("warning: \(PinExportWriter.appTransportSecurityWarning)") }
    if inputs.headerLine == nil && !inputs.values.isEmpty {
      Output.error("note: the inputs are not recorded in the file (a path holds \"--\"): give them again to cnpin lint --against")
    }
    for finding in export.findings { Output.error("\(path): \(finding)") }
    if let soonest = export.soonestRotation.key, let date = soonest.validUntil {
      Output.error("rotates soonest: \(soonest.origin), valid until \(PinExport.day(date))")
    }
    if !export.isComplete {
      let count = export.findings.filter { !$0.carried }.count
      throw .failed(
        "\(count) part(s) of \(path) could not be carried to \(format.title)"
          + (arguments.has(.force) ? "; written anyway (--force)" : "; nothing written (--force writes it anyway)"))
    }
  }

  /// The import: the configuration, then the findings on standard error; exit 1 when something
  /// could not be carried.
  private static func importPins(_ path: String, from: String, _ arguments: Arguments) throws(CLIError) {
    guard let source = PinFormat(rawValue: from) else { throw .usage(Help.refusal(.from, from)) }
    let formatName = arguments.value(.to) ?? CNPinningDocument.Format.json.rawValue
    guard let format = CNPinningDocument.Format(rawValue: formatName) else {
      throw .usage("\(Option.from) writes a CNPinning configuration: \(Option.to) plist or json, not \(Output.value(formatName))")
    }
    for option in [Option.chain, .cafile, .trust, .catalogue, .force]
    where arguments.has(option) || !arguments.values(option).isEmpty {
      throw .usage("\(option) is not read with \(Option.from)")
    }
    let pins = try ExportedPins.read(try InputFile.read(path, path), path: path)
    guard pins.format == source else {
      throw .configuration("\(path) holds \(pins.format.title), not \(source.title): \(Option.from) \(pins.format.rawValue)")
    }
    let imported = PinImport(pins)
    for finding in imported.findings { Output.error("\(path): \(finding)") }
    guard !imported.configurations.isEmpty else { throw .failed("nothing of \(path) could be carried; nothing written") }
    let document: CNPinningDocument
    do {
      document = try CNPinningDocument(configuration: imported.configurations)
    } catch {
      throw .failed("the pins of \(path) make no valid configuration: \(error)")
    }
    try write(document.encoded(as: format), arguments)
    let output = arguments.value(.output) ?? "FILE"
    Output.error(
      "note: \(imported.configurations.count) host(s) pinned by keys alone; cnpin pins HOST --add-to \(output) adds a host's CN chain (from the live host, or --chain with its PEM chain and --host)"
    )
    if !imported.isComplete {
      let count = imported.findings.filter { !$0.carried }.count
      throw .failed("\(count) part(s) of \(path) could not be carried to a CNPinning configuration; the rest was written")
    }
  }

  private static func write(_ data: Data, _ arguments: Arguments) throws(CLIError) {
    if let output = arguments.value(.output) {
      do {
        try data.write(to: URL(fileURLWithPath: output))
      } catch {
        throw .configuration("cannot write \(output): \(error.localizedDescription)")
      }
    } else {
      Output.write(data)
    }
  }
}
