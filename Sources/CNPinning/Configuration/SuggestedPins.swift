/// The seed's heuristic for turning a verified chain into pins: a Common Name ending in a run of
/// ASCII digits becomes `prefixWithNumber` on the part before them; any other name is `exact`.
/// Used by `cnpin pins` and the demonstration.
package enum SuggestedPins {
  /// A certificate of the chain has no usable Common Name, so the chain cannot be pinned by CN.
  package struct Unpinnable: Error, CustomStringConvertible {
    /// Its position, counted root → leaf.
    package let position: Int
    package let problem: String
    package var description: String { "certificate \(position) (root → leaf) cannot be pinned by CN: \(problem)" }
  }

  /// The link for one Common Name.
  package static func link(for commonName: String) throws(CNConfigurationError) -> CNChainLink {
    let digits = commonName.utf8.reversed().prefix { $0 >= 0x30 && $0 <= 0x39 }.count
    if digits > 0, digits < commonName.utf8.count {
      return try CNChainLink(.prefixWithNumber, String(commonName.utf8.dropLast(digits))!)
    }
    return try CNChainLink(.exact, commonName)
  }

  /// The configuration for a verified chain given root → leaf. Throws `Unpinnable` when a
  /// certificate has no usable Common Name, `CNConfigurationError` for a chain the model refuses.
  package static func configuration(rootToLeaf chain: [CNCertificate], includesSubdomains: Bool) throws -> CNConfiguration {
    let links = try chain.enumerated().map { position, certificate in
      guard let name = certificate.commonName else {
        throw Unpinnable(position: position, problem: certificate.commonNameProblem.map { "\($0)" } ?? "no Common Name")
      }
      return try link(for: name)
    }
    return try CNConfiguration(includesSubdomains: includesSubdomains, [CNChain(links)])
  }
}
