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

  /// The configuration for verified chains given root → leaf, one pinned chain each (the
  /// chain, and its other shape across a cross-signed root when there is one). Throws
  /// `Unpinnable` when a certificate has no usable Common Name, `CNConfigurationError` for a
  /// chain the model refuses.
  package static func configuration(rootToLeaf chains: [CNCertificate]..., includesSubdomains: Bool) throws
    -> CNConfiguration
  {
    let pinned = try chains.map { chain in
      try CNChain(
        chain.enumerated().map { position, certificate in
          guard let name = certificate.commonName else {
            throw Unpinnable(position: position, problem: certificate.commonNameProblem.map { "\($0)" } ?? "no Common Name")
          }
          return try link(for: name)
        })
    }
    return try CNConfiguration(includesSubdomains: includesSubdomains, pinned)
  }

  /// The verified chain's other shape across a cross-signed root, root → leaf, when `anchors`
  /// (the trust store, or roots it is about to carry) or the certificates the server presented
  /// tell: a CA in the chain whose self-signed twin (same name, same key) is among `anchors`
  /// gives the shorter chain that twin anchors; an anchor the server also sent as signed by
  /// another root in `anchors` gives the longer chain through that cross-sign. Nil otherwise.
  package static func otherShape(
    rootToLeaf chain: [CNCertificate], presented: [CNCertificate], anchors: [CNCertificate]
  ) -> [CNCertificate]? {
    guard chain.count >= 3 else { return nil }
    // Through a cross-sign: a CA below the anchor whose self-signed twin is an anchor.
    for index in 1..<(chain.count - 1) where !chain[index].isSelfIssued {
      if let twin = anchors.first(where: { $0.isSelfIssued && $0.isSameCA(as: chain[index]) }) {
        return [twin] + chain[(index + 1)...]
      }
    }
    // Anchored at a root the server also sent cross-signed: the chain through that cross-sign.
    let anchor = chain[0]
    for crossSigned in presented where !crossSigned.isSelfIssued && crossSigned.isSameCA(as: anchor) {
      if let issuer = anchors.first(where: { $0.isSelfIssued && crossSigned.isIssued(byNameOf: $0) }) {
        return [issuer, crossSigned] + chain[1...]
      }
    }
    return nil
  }
}
