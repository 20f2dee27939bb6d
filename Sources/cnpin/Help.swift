import CNPinning
import Foundation

/// A command's help, made from its argument specs: the usage lines, what the command does, its
/// options and then the network options, each with what it does, and the exit status and
/// examples. Only the prose is written by hand; no option is spelled twice.
enum Help {
  /// The column the help is wrapped at.
  static let width = 100
  /// Where an option's explanation starts.
  private static let helpColumn = 19

  static func text(_ specs: [ArgumentSpec], about: String, footer: String) -> String {
    let usage = specs.flatMap(\.usageLines).enumerated().map { ($0.offset == 0 ? "Usage: " : "       ") + $0.element }
    var seen: Set<String> = []
    let options = specs.flatMap(\.options).filter { seen.insert($0.name).inserted }
    // The network options apart when the command takes them all (it connects); else among its own.
    let names = Set(options.map(\.name))
    let network = NetworkOptions.all.allSatisfy { names.contains($0.name) } ? Set(NetworkOptions.all.map(\.name)) : []
    var sections = [usage.joined(separator: "\n"), about]
    let own = options.filter { !network.contains($0.name) }
    if !own.isEmpty { sections.append("Options:\n" + list(own)) }
    let shared = options.filter { network.contains($0.name) }
    if !shared.isEmpty { sections.append("Network options:\n" + list(shared)) }
    sections.append(footer)
    return sections.joined(separator: "\n\n")
  }

  /// What the parser says of a value that is not one of an option's choices.
  static func refusal(_ option: Option, _ value: String) -> String {
    "\(option) must be one of \(option.choices.map(\.value).joined(separator: ", ")), not \(VisibleText.quoted(value))"
  }

  /// Each option with its explanation, then each of its choices with theirs.
  static func list(_ options: [Option]) -> String {
    options.flatMap { option -> [String] in
      var entries: [String] = []
      if !option.help.isEmpty {
        let value = option.choices.isEmpty ? option.value : option.choices.map(\.value).joined(separator: "|")
        entries += entry(option.names.joined(separator: ", ") + (value.map { " " + $0 } ?? ""), option.help)
      }
      for choice in option.choices { entries += entry("\(option.name) \(choice.value)", choice.help) }
      return entries
    }.joined(separator: "\n")
  }

  /// `  LABEL            explanation wrapped at the help column`, the label on a line of its own
  /// when it is too long to leave a space before the column.
  private static func entry(_ label: String, _ help: String) -> [String] {
    let indent = String(repeating: " ", count: helpColumn)
    var lines = wrap(help, width: width - helpColumn).map { indent + $0 }
    let start = "  " + label
    if start.count < helpColumn, !lines.isEmpty {
      lines[0] = start.padding(toLength: helpColumn, withPad: " ", startingAt: 0) + lines[0].dropFirst(helpColumn)
    } else {
      lines.insert(start, at: 0)
    }
    return lines
  }

  /// `text`'s words in lines of at most `width` characters (a longer word alone on its line).
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}
