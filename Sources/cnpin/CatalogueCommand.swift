import CNPinning
import Foundation

/// `cnpin catalogue`: the CA catalogue the commands use (compiled in, or `--catalogue FILE`):
/// each operator's families with their status, dates, shapes and successors, and the dated
/// events of root stores; `--format json` prints the document itself, which `--catalogue`
/// accepts, to refresh or extend without a release.
enum CatalogueCommand {
  static let spec = ArgumentSpec(
    command: "catalogue", forms: [[]],
    options: [
      .catalogueFormat,
      .catalogue.explained(
        "use this catalogue document instead of the compiled-in one (any command that reads the catalogue takes it)"),
      .at.explained("list each family's status as of DATE (YYYY-MM-DD or a time, UTC)"),
    ])

  static let help = Help.text(
    [spec],
    about: """
      Lists the CA catalogue that `pins`, `lint --rehearse`, `check --warn-days` and `convert` use:
      each CA (the operator) with its families (a key type's hierarchy, under the CA's own name:
      Let's Encrypt's "Generation Y ECDSA"), each family's status (announced, current, retiring,
      retired), dates, issuing CAs, the shapes stores verify it in and the families that succeed
      it; then the dated events of root stores and the CA/Browser Forum that break or endanger pins.
      """,
    footer: """
      Examples:
        cnpin catalogue
        cnpin catalogue --format json > catalogue.json

      Then, for instance, `cnpin lint pins.json --rehearse --catalogue catalogue.json`.
      """)

  enum Format: String { case text, json }

  static func run(_ words: [String]) throws(CLIError) {
    let arguments = try spec.parse(words)
    let catalogue = try CatalogueOption.catalogue(arguments)
    switch try arguments.choice(.catalogueFormat, default: Format.text) {
    case .text: listing(catalogue, at: try Clock.now(arguments)).forEach(Output.print)
    case .json: Output.write(Data(catalogue.json.utf8))
    }
  }

  /// The catalogue in lines, escaped (a catalogue file is input like any other).
  static func listing(_ catalogue: CACatalogue, at date: Date) -> [String] {
    var lines = [Output.value(catalogue.label)]
    for entry in catalogue.operators {
      lines.append("")
      lines.append(Output.value(entry.name))
      for family in entry.families {
        let successors = family.successors.isEmpty ? "" : "; succeeded by \(family.successors.joined(separator: ", "))"
        lines.append(
          "  \(Output.value(family.name)) (\(family.keyType), \(CNConfigurationLinter.dates(of: family, at: date))\(Output.value(successors)))"
        )
        if let note = family.note { lines.append("    \(Output.value(note))") }
        let backups = Set(family.certificates.filter { $0.status == .backup }.map(\.name))
        let issuing = family.issuing.map { Output.value($0) + (backups.contains($0) ? " (backup)" : "") }
        lines.append("    issuing: \(issuing.joined(separator: ", "))")
        for shape in family.shapes {
          let names = shape.above.map(Output.value).joined(separator: " → ")
          lines.append("    shape: \(names) → issuing CA → leaf, for \(Output.value(shape.stores))")
        }
      }
    }
    lines.append("")
    lines.append("Events")
    for event in catalogue.events {
      let stores = event.stores.isEmpty ? "every store" : event.stores.joined(separator: ", ")
      let operators = event.operators.isEmpty ? "" : " (\(event.operators.joined(separator: ", ")))"
      lines.append(
        "  \(event.date)  \(Output.value(stores))\(Output.value(operators)): \(Output.value(event.summary)) [\(event.kind.rawValue); \(Output.value(event.source))]"
      )
    }
    return lines
  }
}

/// `--catalogue FILE`, on every command that reads the CA catalogue: the file's catalogue, else
/// the compiled-in one.
enum CatalogueOption {
  static func catalogue(_ arguments: Arguments) throws(CLIError) -> CACatalogue {
    guard let path = arguments.value(.catalogue) else { return .compiledIn }
    let maximum = 4 << 20
    let data: Data
    do {
      data = try BoundedFile.read(URL(fileURLWithPath: path), maximum: maximum)
    } catch {
      throw .configuration("cannot read --catalogue \(path): \(error.localizedDescription)")
    }
    guard data.count <= maximum else { throw .configuration("\(Option.catalogue) \(path) is larger than 4 MiB") }
    guard let text = String(data: data, encoding: .utf8) else {
      throw .configuration("\(Option.catalogue) \(path) is not UTF-8 text")
    }
    do {
      return try CACatalogue(json: text, source: path)
    } catch {
      throw .configuration("\(Option.catalogue) \(error)")
    }
  }
}
