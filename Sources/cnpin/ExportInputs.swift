import Foundation

/// What an export was resolved against (`--chain`, `--cafile`, `--trust`, `--catalogue`), kept in
/// the exported file's header so that `cnpin lint --against` exports again from the same inputs
/// instead of reporting drift that is not there (issue 65, item 6).
///
/// Written as one header line, `Inputs: {…}` (JSON, sorted keys, option names without their
/// dashes, as an XML comment may not hold `--`). Paths are kept as given; `lint --against` reads
/// each as given, else beside the exported file, and names the ones it cannot find.
struct ExportInputs: Equatable {
  static let options: [Option] = [.chain, .cafile, .trust, .catalogue]
  private static let prefix = "Inputs, which cnpin lint reads to check drift: "

  /// Option (with its dashes) → values, in the order given.
  var values: [String: [String]] = [:]

  init(_ arguments: Arguments) {
    for option in Self.options where !arguments.values(option).isEmpty { values[option.name] = arguments.values(option) }
  }

  private init(values: [String: [String]]) { self.values = values }

  /// The header line; nil when a value could not survive a comment (`--` in a path) or is not
  /// plain text: the reader then names the inputs it needs.
  var headerLine: String? {
    let object = Dictionary(uniqueKeysWithValues: values.map { (String($0.key.dropFirst(2)), $0.value) })
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
      let text = String(data: data, encoding: .utf8), !text.contains("--"),
      !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    else { return nil }
    return Self.prefix + text
  }

  /// The inputs an exported file's header names; nil when it names none (an older export, or a
  /// file written by hand).
  static func read(fromExported text: String) -> ExportInputs? {
    guard let start = text.range(of: prefix) else { return nil }
    let line = text[start.upperBound...].prefix { $0 != "\n" }
    guard let end = line.lastIndex(of: "}"),
      let object = try? JSONSerialization.jsonObject(with: Data(line[...end].utf8)) as? [String: [String]]
    else { return nil }
    var values: [String: [String]] = [:]
    for (name, list) in object where options.contains(where: { $0.name == "--" + name }) { values["--" + name] = list }
    return ExportInputs(values: values)
  }

  /// `arguments` with these inputs in place of the export options it lacks, each path found as
  /// given or beside `exported`; throws naming the inputs that cannot be found.
  func applied(to arguments: Arguments, exported: String) throws(CLIError) -> Arguments {
    guard Self.options.allSatisfy({ arguments.values($0).isEmpty }) else { return arguments }
    var result = arguments
    var missing: [String] = []
    let directory = URL(fileURLWithPath: exported).deletingLastPathComponent()
    for (option, list) in values.sorted(by: { $0.key < $1.key }) {
      result.options[option] = list.map { value in
        guard option != Option.trust.name else { return value }
        if FileManager.default.fileExists(atPath: value) { return value }
        let beside = directory.appendingPathComponent(value).path
        if FileManager.default.fileExists(atPath: beside) { return beside }
        missing.append("\(option) \(value)")
        return value
      }
    }
    guard missing.isEmpty else {
      throw .configuration(
        "\(exported) was exported with \(missing.map { Output.value($0) }.joined(separator: ", ")), which cannot be found here: pass the export's inputs again (\(Self.options.map(\.name).joined(separator: ", ")))"
      )
    }
    return result
  }
}
