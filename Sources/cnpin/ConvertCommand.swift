import CNPinning
import Foundation

/// `cnpin convert FILE --to plist|json`.
enum ConvertCommand {
  static let spec = ArgumentSpec(
    flags: ["--help", "-h"], options: ["--to", "-o"], positionals: 1...1, positionalName: "FILE")

  static let help = """
    Usage: cnpin convert FILE --to plist|json [-o OUTPUT]

    Reads a configuration (property list or JSON), validates it like the library does, and writes
    the same configuration in the other format (to standard output, or OUTPUT). Links without a
    type are written with their effective type, exact.

    Example:
      cnpin convert Info.plist --to json -o pins.json
    """

  static func run(_ words: [String]) throws(CLIError) {
    let arguments = try spec.parse(words)
    guard let formatName = arguments.value("--to") else { throw .usage("missing --to plist|json") }
    guard let format = CNPinningDocument.Format(rawValue: formatName) else {
      throw .usage("--to must be plist or json, not \"\(formatName)\"")
    }
    let document = try loadDocument(arguments.positionals[0])
    for warning in document.warnings { Output.error("warning: \(warning)") }
    let data = document.encoded(as: format)
    if let output = arguments.value("-o") {
      do {
        try data.write(to: URL(fileURLWithPath: output))
      } catch {
        throw .usage("cannot write \(output): \(error.localizedDescription)")
      }
    } else {
      Output.write(data)
    }
  }
}
