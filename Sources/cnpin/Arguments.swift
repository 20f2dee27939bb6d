/// A command's parsed arguments: flags, options with values (repeatable) and positionals.
struct Arguments {
  var flags: Set<String> = []
  var options: [String: [String]] = [:]
  var positionals: [String] = []

  func has(_ flag: String) -> Bool { flags.contains(flag) }
  func value(_ option: String) -> String? { options[option]?.last }
  func values(_ option: String) -> [String] { options[option] ?? [] }
}

/// What a command accepts.
struct ArgumentSpec {
  var flags: Set<String> = []
  var options: Set<String> = []
  var positionals: ClosedRange<Int> = 0...0
  var positionalName = "ARGUMENT"
  /// Other spellings (curl's) of a flag or option: spelling → the name it is parsed as.
  static let aliases = ["--cacert": "--cafile", "--location": "-L", "--silent": "-s", "--include": "-i"]
  /// Options refused with the reason, whatever the command: what a pinning tool must not do.
  static let refused = [
    "-k": "-k/--insecure is refused: cnpin never turns certificate verification off; for a private CA give it with --cacert FILE",
    "--insecure":
      "-k/--insecure is refused: cnpin never turns certificate verification off; for a private CA give it with --cacert FILE",
  ]

  /// Parses `words`: `--option value`, `--option=value`, `-X value`, flags, `--` ends options.
  func parse(_ words: [String]) throws(CLIError) -> Arguments {
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
      name = Self.aliases[name] ?? name
      if flags.contains(name) {
        guard inlineValue == nil else { throw .usage("\(name) takes no value") }
        result.flags.insert(name)
      } else if options.contains(name) {
        if let inlineValue {
          result.options[name, default: []].append(inlineValue)
        } else {
          guard index < words.count else { throw .usage("\(name) needs a value") }
          result.options[name, default: []].append(words[index])
          index += 1
        }
      } else {
        throw .usage("unknown option \(name)")
      }
    }
    guard positionals.contains(result.positionals.count) else {
      if result.positionals.count < positionals.lowerBound { throw .usage("missing \(positionalName)") }
      throw .usage("unexpected argument \"\(result.positionals[positionals.upperBound])\"")
    }
    return result
  }
}
