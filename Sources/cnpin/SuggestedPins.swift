import CNPinning

/// `cnpin pins`' suggestions: the seed's heuristic (`SuggestedPins` in CNPinning), with errors
/// for the command line, and the Swift literal form.
extension SuggestedPins {
  /// The configuration for verified chains given root → leaf, or why they cannot be pinned by CN.
  static func cliConfiguration(rootToLeaf chains: [[CNCertificate]], includesSubdomains: Bool) throws(CLIError)
    -> CNConfiguration
  {
    do {
      return try CNConfiguration(
        includesSubdomains: includesSubdomains,
        chains.flatMap { try configuration(rootToLeaf: $0, includesSubdomains: includesSubdomains).chains })
    } catch {
      throw .failed("\(error)")
    }
  }

  /// A Swift `CNChain` literal per chain, each link commented with the name it was made from;
  /// several chains as an array.
  static func swiftLiteral(_ configuration: CNConfiguration, names: [[String]]) -> String {
    let literals = zip(configuration.chains, names).map { chain, names in
      var lines = ["CNChain([  // written root → leaf"]
      for (link, name) in zip(chain.links, names) {
        lines.append("  CNChainLink(.\(link.type.rawValue), \(swiftString(link.value))),  // \(Output.value(name))")
      }
      lines.append("])")
      return lines
    }
    guard literals.count > 1 else { return literals[0].joined(separator: "\n") }
    return (["["] + literals.map { $0.map { "  " + $0 }.joined(separator: "\n") + "," } + ["]"]).joined(separator: "\n")
  }

  /// A Swift string literal for `text`: quotes, backslashes and every character `VisibleText`
  /// escapes (`\u{1b}`), so that a certificate's name cannot end the literal or the line.
  static func swiftString(_ text: String) -> String { VisibleText.quoted(text, as: .swift) }
}

/// What satisfied a host's pins, in words: "chain 0 of api.example.com", "SPKI pin of …".
func describeMatch(_ match: CNPinningMatch) -> String {
  let source = match.source == .enterprisePolicy ? "enterprise policy " : ""
  if let index = match.chainIndex { return "\(source)chain \(index) of \(match.domain)" }
  if match.spkiPin != nil { return "SPKI pin of \(match.domain)" }
  return "certificate pin of \(match.domain)"
}
