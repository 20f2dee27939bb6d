import Foundation

/// The catalogue as a calendar (issue 64): the dated events and the families' last days that
/// touch a host's pins, for `--warn-days`.
extension CACatalogue {
  /// Something dated that touches a host's pins.
  package struct Due: Sendable, Equatable {
    /// YYYY-MM-DD.
    package let date: String
    /// What happens, with its source.
    package let summary: String
    /// What of the host's pins it touches, each with its path.
    package let touches: [String]
  }

  /// The events and family endings on a day in `from ..< to` that touch `configuration`: a root a
  /// chain starts at (or a `ca` key pin names) leaving a store; leaves issued more often, for a
  /// host with leaf-scoped key or certificate pins; new intermediates, for a chain with an
  /// `exact` intermediate link; the last day of a family the chains accept. Notices touch nothing.
  package func calendar(for configuration: CNConfiguration, from: Date, to: Date) -> [Due] {
    let chains = configuration.chains
    let named = Set(families(namedBy: chains).map(\.operatorName))
    var due: [Due] = []
    for event in events {
      guard let day = Self.day(event.date), day >= from, day < to else { continue }
      let touches: [String]
      switch event.kind {
      case .rootRemoved: touches = removedRoots(event.roots, in: configuration)
      case .leafLifetime:
        guard event.operators.isEmpty || event.operators.contains(where: named.contains) else { continue }
        touches = leafPins(of: configuration)
      case .intermediates: touches = exactIntermediates(in: chains)
      case .notice: touches = []
      }
      guard !touches.isEmpty else { continue }
      let stores = event.stores.isEmpty ? "" : event.stores.joined(separator: ", ") + ": "
      due.append(Due(date: event.date, summary: "\(stores)\(event.summary) (\(event.source))", touches: touches))
    }
    for family in families where CACatalogue.accepts(family, by: chains) {
      guard let until = family.until, let day = Self.day(until), day >= from, day < to else { continue }
      let successors = successors(of: family, at: from)
      let refused = successors.filter { !CACatalogue.accepts($0, by: chains) }.map(\.title)
      due.append(
        Due(
          date: until, summary: "\(family.title) stops issuing",
          touches: [
            "chainSet accepts it"
              + (refused.isEmpty
                ? (successors.isEmpty ? ", and no successor is catalogued" : " and its successor")
                : " but refuses its successor \(refused.joined(separator: " and ")): rehearse with cnpin lint --rehearse")
          ]))
    }
    return due.sorted { $0.date < $1.date }
  }

  /// The chains that start at one of `roots` (their first link, or one that may be the anchor),
  /// and the `ca` key pins that name one.
  private func removedRoots(_ roots: [String], in configuration: CNConfiguration) -> [String] {
    var touches: [String] = []
    for (index, chain) in configuration.chains.enumerated() {
      for (position, link) in chain.links.enumerated() where position == 0 || link.mayBeAnchor {
        for root in roots where link.matches(commonName: root) {
          let others = chain.shapes.count > 1 ? " (one of its \(chain.shapes.count) shapes)" : ""
          touches.append("chainSet[\(index)] starts at \(VisibleText.quoted(root))\(others)")
        }
      }
    }
    let keys = Dictionary(knownKeys.map { ($0.spkiSHA256, $0.name) }, uniquingKeysWith: { first, _ in first })
    for (index, pin) in configuration.spkiPins.enumerated() where pin.scope != .leaf {
      if let name = keys[pin.sha256Base64], roots.contains(name) {
        touches.append("spkiPins[\(index)] pins \(VisibleText.quoted(name))'s key")
      }
    }
    return touches
  }

  /// The key and certificate pins a leaf's renewal can change.
  private func leafPins(of configuration: CNConfiguration) -> [String] {
    configuration.spkiPins.indices.filter { configuration.spkiPins[$0].scope == .leaf }
      .map { "spkiPins[\($0)] (appliesTo leaf) rotates with each leaf" }
      + configuration.certificatePins.indices.filter { configuration.certificatePins[$0].scope != .ca }
      .map { "certificatePins[\($0)] changes with each leaf" }
  }

  /// The `exact` links on intermediates: a CA's next intermediate has another name.
  private func exactIntermediates(in chains: [CNChain]) -> [String] {
    var touches: [String] = []
    for (index, chain) in chains.enumerated() {
      for position in chain.links.indices.dropFirst().dropLast()
      where chain.links[position].type == .exact && !chain.links[position].mayBeAnchor {
        touches.append("chainSet[\(index)][\(position)] is exact \(VisibleText.quoted(chain.links[position].value))")
      }
    }
    return touches
  }
}
