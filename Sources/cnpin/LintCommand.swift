import CNPinning
import Foundation

/// `cnpin lint FILE`: static findings that predict failing open or locking users out.
enum LintCommand {
  static let spec = ArgumentSpec(flags: ["--json", "--help", "-h"], positionals: 1...1, positionalName: "FILE")

  static let help = """
    Usage: cnpin lint FILE [--json]

    Reports, with the path of each element: errors (the file does not load: invalid host names,
    unknown keys or link types, empty values, duplicate hosts, an empty configuration …) and
    warnings (suffix links without a dot boundary, prefixes so short they accept almost any CA,
    exact links on CA certificates, hosts with a single chain and no backup, one-link chains) and
    notes (hosts that shadow a parent domain's includesSubdomains pins, one-letter prefixWithNumber).

    Exit status: 2 when there are errors, 0 otherwise (warnings included).

    Example:
      cnpin lint Info.plist
    """

  struct Report: Encodable {
    let file: String
    let findings: [CNLintFinding]
    let errors: Int
    let warnings: Int
    let notes: Int
  }

  static func run(_ words: [String]) throws(CLIError) {
    let arguments = try spec.parse(words)
    let path = arguments.positionals[0]
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw .configuration("cannot read \(path): \(error.localizedDescription)")
    }
    let findings = CNConfigurationLinter.lint(data: data, source: path)
    let count = { (severity: CNLintFinding.Severity) in findings.filter { $0.severity == severity }.count }
    if arguments.has("--json") {
      Output.print(
        Output.json(Report(file: path, findings: findings, errors: count(.error), warnings: count(.warning), notes: count(.note))))
    } else {
      for finding in findings { Output.print("\(path): \(finding)") }
      Output.print("\(path): \(count(.error)) error(s), \(count(.warning)) warning(s), \(count(.note)) note(s)")
    }
    if count(.error) > 0 { throw .exit(ExitStatus.usage) }
  }
}
