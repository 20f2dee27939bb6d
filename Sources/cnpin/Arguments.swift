/// A command's parsed arguments: flags, options with values (repeatable) and positionals, each
/// option under its first name whichever spelling was written.
struct Arguments {
  var flags: Set<String> = []
  var options: [String: [String]] = [:]
  var positionals: [String] = []

  func has(_ flag: Option) -> Bool { flags.contains(flag.name) }
  func value(_ option: Option) -> String? { options[option.name]?.last }
  func values(_ option: Option) -> [String] { options[option.name] ?? [] }

  /// The value of an option with choices, as `T`; `fallback` when the option is not given.
  func choice<T: RawRepresentable<String>>(_ option: Option, default fallback: T) throws(CLIError) -> T {
    guard let text = value(option) else { return fallback }
    guard let parsed = T(rawValue: text) else { throw .usage(Help.refusal(option, text)) }
    return parsed
  }
}

/// What a command accepts, and how its usage lines write it.
struct ArgumentSpec {
  /// A word of a usage line: a placeholder (`URL`) or a required option with its value.
  enum Word: ExpressibleByStringLiteral {
    case text(String)
    case option(Option)
    init(stringLiteral value: String) { self = .text(value) }
  }

  /// `pins`, or `policy sign`.
  let command: String
  /// Each way to call it, without `[OPTIONS]`.
  let forms: [[Word]]
  /// Everything it accepts besides `--help`, in the order the help lists them.
  let options: [Option]
  var positionals: ClosedRange<Int> = 0...0
  var positionalName = "ARGUMENT"

  /// Options refused with the reason, whatever the command: what a pinning tool must not do.
  static let refused = [
    "-k": "-k/--insecure is refused: cnpin never turns certificate verification off; for a private CA give it with --cacert FILE",
    "--insecure":
      "-k/--insecure is refused: cnpin never turns certificate verification off; for a private CA give it with --cacert FILE",
  ]

  /// The usage lines, `cnpin pins HOST[:PORT] [OPTIONS]`.
  var usageLines: [String] {
    forms.map { form in
      let words = form.map { word in
        switch word {
        case .text(let text): text
        case .option(let option): option.usage
        }
      }
      return (["cnpin", command] + words + ["[OPTIONS]"]).joined(separator: " ")
    }
  }

  /// Parses `words`: `--option value`, `--option=value`, `-X value`, flags, `--` ends options.
  func parse(_ words: [String]) throws(CLIError) -> Arguments {
    var known: [String: Option] = [:]
    for option in options + [.help] {
      for name in option.names { known[name] = option }
    }
    var result = Arguments()
    var index = 0
    var optionsEnded = false
    while index < words.count {
      let word = words[index]
      index += 1
      guard !optionsEnded, word.hasPrefix("-"), word != "-" else {
        result.positionals.append(word)
        continue
      }
      if word == "--" {
        optionsEnded = true
        continue
      }
      var name = word
      var inlineValue: String?
      if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
        name = String(word[..<equals])
        inlineValue = String(word[word.index(after: equals)...])
      }
      if let reason = Self.refused[name] { throw .usage(reason) }
      guard let option = known[name] else { throw .usage("unknown option \(name)") }
      if option.isFlag {
        guard inlineValue == nil else { throw .usage("\(name) takes no value") }
        result.flags.insert(option.name)
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else {
        guard index < words.count else { throw .usage("\(name) needs a value") }
        value = words[index]
        index += 1
      }
      result.options[option.name, default: []].append(value)
    }
    // Values are judged once every word is known to be an option: an unknown one is said first.
    for option in options where !option.choices.isEmpty {
      for value in result.values(option) where !option.choices.contains(where: { $0.value == value }) {
        throw .usage(Help.refusal(option, value))
      }
    }
    guard positionals.contains(result.positionals.count) else {
      if result.positionals.count < positionals.lowerBound { throw .usage("missing \(positionalName)") }
      throw .usage("unexpected argument \"\(result.positionals[positionals.upperBound])\"")
    }
    return result
  }
}
