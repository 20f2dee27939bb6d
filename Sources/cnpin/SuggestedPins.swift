import CNPinning

/// `cnpin pins`' suggestions: the seed's heuristic (`SuggestedPins` in CNPinning), with errors
/// for the command line, and the Swift literal form.
extension SuggestedPins {
  /// The configuration for a verified chain given root → leaf, or why it cannot be pinned by CN.
  static func cliConfiguration(rootToLeaf chain: [CNCertificate], includesSubdomains: Bool) throws(CLIError)
    -> CNConfiguration
  {
    do {
      return try configuration(rootToLeaf: chain, includesSubdomains: includesSubdomains)
    } catch {
      throw .failed("\(error)")
    }
  }

  /// A Swift `CNChain` literal, each link commented with the name it was made from.
  static func swiftLiteral(_ configuration: CNConfiguration, names: [String]) -> String {
    var lines = ["CNChain([  // written root → leaf"]
    for (link, name) in zip(configuration.chains[0].links, names) {
      lines.append("  CNChainLink(.\(link.type.rawValue), \(swiftString(link.value))),  // \(Output.value(name))")
    }
    lines.append("])")
    return lines.joined(separator: "\n")
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
