import CNPinning

/// The seed's heuristic for turning a verified chain into pins: a Common Name ending in a run of
/// ASCII digits becomes `prefixWithNumber` on the part before them; any other name is `exact`.
enum SuggestedPins {
  static func link(for commonName: String) throws -> CNChainLink {
    let digits = commonName.utf8.reversed().prefix { $0 >= 0x30 && $0 <= 0x39 }.count
    if digits > 0, digits < commonName.utf8.count {
      return try CNChainLink(.prefixWithNumber, String(commonName.utf8.dropLast(digits))!)
    }
    return try CNChainLink(.exact, commonName)
  }

  /// The configuration for a verified chain given root → leaf. Throws when a certificate has no
  /// usable Common Name (such a chain can never be pinned by CN).
  static func configuration(rootToLeaf chain: [CNCertificate], includesSubdomains: Bool) throws(CLIError)
    -> CNConfiguration
  {
    do {
      let links = try chain.enumerated().map { position, certificate in
        guard let name = certificate.commonName else {
          throw CLIError.failed(
            "certificate \(position) (root → leaf) cannot be pinned by CN: \(certificate.commonNameProblem!)")
        }
        return try link(for: name)
      }
      return try CNConfiguration(includesSubdomains: includesSubdomains, [CNChain(links)])
    } catch let error as CLIError {
      throw error
    } catch {
      throw .failed("\(error)")
    }
  }

  /// A Swift `CNChain` literal, each link commented with the name it was made from.
  static func swiftLiteral(_ configuration: CNConfiguration, names: [String]) -> String {
    var lines = ["CNChain([  // written root → leaf"]
    for (link, name) in zip(configuration.chains[0].links, names) {
      lines.append("  CNChainLink(.\(link.type.rawValue), \(DocumentWriter.jsonString(link.value))),  // \(name)")
    }
    lines.append("])")
    return lines.joined(separator: "\n")
  }
}

/// What satisfied a host's pins, in words: "chain 0 of api.example.com", "SPKI pin of …".
func describeMatch(_ match: CNPinningMatch) -> String {
  let source = match.source == .enterprisePolicy ? "enterprise policy " : ""
  if let index = match.chainIndex { return "\(source)chain \(index) of \(match.domain)" }
  if match.spkiPin != nil { return "SPKI pin of \(match.domain)" }
  return "certificate pin of \(match.domain)"
}
