/// One option of cnpin, declared once: its spellings, the value it takes and what it does. The
/// parser, each command's usage lines and its help's option list are made from these
/// declarations (`ArgumentSpec`, `Help`); `Options.swift` holds them.
struct Option: CustomStringConvertible, Sendable {
  /// A value the option takes, with what it does.
  struct Choice: Sendable {
    let value: String
    let help: String
  }

  /// The spellings: the first is the one it is parsed as and named by in messages; the others
  /// are curl's (`--cacert` for `--cafile`) or long forms (`--proxy` for `-x`).
  let names: [String]
  /// The value's placeholder in usage and help (`PEM`, `N`); nil for a flag.
  let value: String?
  /// What it does, in one paragraph: the help wraps it.
  var help: String
  /// The values it takes, each explained in the help; empty when any value is taken.
  var choices: [Choice] = []

  init(_ names: String..., value: String? = nil, help: String, choices: [Choice] = []) {
    self.names = names
    self.value = value
    self.help = help
    self.choices = choices
  }

  var name: String { names[0] }
  var isFlag: Bool { value == nil }
  /// The name messages use.
  var description: String { name }
  /// Every spelling, `-x/--proxy`.
  var spellings: String { names.joined(separator: "/") }

  /// The option as one command explains it, where the shared words would not say enough.
  func explained(_ help: String) -> Option {
    var copy = self
    copy.help = help
    return copy
  }

  /// The option taking only `choices`, each explained (the parser refuses any other value).
  func choosing(_ choices: [(String, String)]) -> Option {
    var copy = self
    copy.choices = choices.map { Choice(value: $0.0, help: $0.1) }
    return copy
  }

  /// How a usage line writes it: `--config FILE`, `--json`.
  var usage: String { value.map { "\(name) \($0)" } ?? name }
}
