import CNPinning

/// `cnpin pins`' Swift form of its suggestion.
extension SuggestedPins {
  /// A Swift `CNChain` literal per chain, each CA link commented with the name it was made from
  /// (the longest shape's); several chains as an array.
  static func swiftLiteral(_ chains: [CNChain], shapes: [[CNCertificate]]) -> String {
    let literals = chains.map { chain in
      let names = shapes.first { $0.count == chain.links.count }?.map(\.displayName) ?? []
      var lines = ["CNChain([  // written root → leaf"]
      for (index, link) in chain.links.enumerated() {
        let anchor = link.mayBeAnchor ? ", mayBeAnchor: true" : ""
        let comment =
          link.type == .subjectAltName
          ? "the leaf, by the names it is valid for"
          : names.indices.contains(index) ? Output.value(names[index]) : ""
        lines.append("  CNChainLink(.\(link.type.rawValue), \(swiftString(link.value))\(anchor)),  // \(comment)")
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
  if let index = match.chainIndex {
    let shape =
      match.shape.map { $0.links.count == match.chain?.links.count ? "" : " (its shape from \(Output.value($0.links[0].value)))" }
      ?? ""
    return "\(source)chain \(index)\(shape) of \(match.domain)"
  }
  if match.spkiPin != nil { return "SPKI pin of \(match.domain)" }
  return "certificate pin of \(match.domain)"
}
