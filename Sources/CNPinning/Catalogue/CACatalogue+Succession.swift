import Foundation

/// What the catalogue says of pinned chains and of chains a host serves: the families they name,
/// the shapes they refuse, and the families that come next.
extension CACatalogue {
  /// The families whose issuing CAs one of `chains`' links names at an issuing CA's place
  /// (second from the leaf), whatever their status.
  package func families(namedBy chains: [CNChain]) -> [Family] {
    families.filter { family in
      chains.contains { chain in
        chain.links.count >= 2 && family.issuing.contains { chain.links[chain.links.count - 2].matches(commonName: $0) }
      }
    }
  }

  /// What `chains` refuse of `family`: each shape with the issuing CAs no chain accepts in it.
  package static func refused(of family: Family, by chains: [CNChain]) -> [(shape: Shape, issuing: [String])] {
    family.shapes.compactMap { shape in
      let refused = family.issuing.filter { issuing in !chains.contains { $0.accepts(caNames: shape.above + [issuing]) } }
      return refused.isEmpty ? nil : (shape, refused)
    }
  }

  /// Whether `chains` accept some shape of `family` with one of its issuing CAs.
  package static func accepts(_ family: Family, by chains: [CNChain]) -> Bool {
    family.shapes.contains { shape in
      family.issuing.contains { issuing in chains.contains { $0.accepts(caNames: shape.above + [issuing]) } }
    }
  }

  /// The family a verified chain (root → leaf) comes from: its issuing CA is one of the family's,
  /// or the next name of the same naming scheme (GlobalSign's quarters, Let's Encrypt's numbers),
  /// and its root is where one of the family's shapes starts.
  package func family(of chain: [CNCertificate]) -> Family? {
    guard chain.count >= 2, let root = chain.first?.commonName, let issuing = chain[chain.count - 2].commonName else {
      return nil
    }
    return families.first { family in
      family.shapes.contains { $0.above.first == root }
        && family.issuing.contains { name in
          name == issuing || (try? SuggestedPins.link(for: name))?.matches(commonName: issuing) == true
        }
    }
  }

  /// The families that succeed `family` and, on `date`, issue or are announced: what a
  /// configuration made from `family`'s chain must also accept.
  package func successors(of family: Family, at date: Date) -> [Family] {
    family.successors.compactMap { self.family($0, of: family.operatorName) }.filter { $0.status(at: date) != .retired }
  }

  /// The operator's families of another key type that, on `date`, issue or are announced: what
  /// an ACME client switching key type brings.
  package func otherKeyTypes(than family: Family, at date: Date) -> [Family] {
    (operators.first { $0.name == family.operatorName }?.families ?? []).filter {
      $0.keyType != family.keyType && $0.status(at: date) != .retired
    }
  }

  /// Why a configuration made from `family` alone is not enough on `date`, in words; nil when it
  /// is: the family has stopped or stops issuing, or has a successor announced.
  package func successionReason(of family: Family, at date: Date) -> String? {
    switch family.status(at: date) {
    case .retired: return "\(family.title) stopped issuing on \(family.until ?? "?")"
    case .retiring: return "\(family.title) stops issuing on \(family.until ?? "?")"
    case .announced, .current:
      return successors(of: family, at: date).isEmpty ? nil : "\(family.title) has an announced successor"
    }
  }

  /// The catalogue's certificates with a known key, by name.
  package var knownKeys: [(name: String, spkiSHA256: String, certificateSHA256: String?)] {
    families.flatMap(\.certificates).compactMap { certificate in
      certificate.spkiSHA256.map { (certificate.name, $0, certificate.certificateSHA256) }
    }
  }
}

extension CNChain {
  /// Whether one of the shapes accepts CAs of these names (root first) above any leaf: the
  /// shape has one link more than there are names, and each name satisfies its CN link.
  package func accepts(caNames: [String]) -> Bool {
    shapes.contains { shape in
      shape.links.count == caNames.count + 1 && zip(shape.links, caNames).allSatisfy { $0.matches(commonName: $1) }
    }
  }
}
