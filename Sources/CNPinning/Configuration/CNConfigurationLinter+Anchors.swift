import Foundation

/// Checks that need the trust anchors: a chain's root link must name an anchor the store has,
/// or the chain can never match and, as the only chain, locks every client out.
extension CNConfigurationLinter {
  /// What the checks need of the anchors, read once per document.
  struct Anchors {
    let count: Int
    /// Distinct Common Names, sorted.
    let names: [String]
    let digests: Set<String>
    /// Each anchor's Common Name (anchors without one left out), in store order.
    let commonNames: [String]

    /// The Common Names of the roots stores are about to carry (`--future-anchors`).
    let futureNames: [String]

    init(_ anchors: [CNCertificate], future: [CNCertificate] = []) {
      count = anchors.count
      commonNames = anchors.compactMap(\.commonName)
      names = Array(Set(commonNames)).sorted()
      digests = Set((anchors + future).map(\.spkiSHA256Base64))
      futureNames = future.compactMap(\.commonName)
    }
  }

  private static let unknownRootMarker = "so this chain can never match;"

  /// Whether `finding` is a root link that matches no trust anchor: what a private PKI's
  /// configuration gets when checked against the system's anchors.
  package static func isUnknownRoot(_ finding: CNLintFinding) -> Bool {
    finding.severity == .error && finding.message.hasPrefix("root link ") && finding.message.contains(unknownRootMarker)
  }

  static func anchorFindings(_ entry: CNPinningDocument.Entry, path: String, anchors: Anchors) -> [CNLintFinding] {
    let names = anchors.names
    var findings: [CNLintFinding] = []
    for (index, chain) in entry.configuration.chains.enumerated() {
      if let root = chain.links.first, let note = manyAnchorsNote(root, anchors: anchors, keyPinned: hasCAKeyPin(entry)) {
        findings.append(CNLintFinding(severity: .note, path: "\(path).chainSet[\(index)][0]", message: note))
      }
      guard let root = chain.links.first, root.type.comparesCommonName else { continue }
      // Each shape's root: a trust anchor, a root about to be trusted (--future-anchors), or neither.
      let roots = chain.links.indices.filter {
        ($0 == 0 || chain.links[$0].mayBeAnchor) && chain.links[$0].type.comparesCommonName
      }
      let trusted = roots.filter { link in names.contains { chain.links[link].matches(commonName: $0) } }
      let future = roots.filter { link in anchors.futureNames.contains { chain.links[link].matches(commonName: $0) } }
      if trusted.isEmpty && future.isEmpty {
        findings.append(
          CNLintFinding(
            severity: .error, path: "\(path).chainSet[\(index)][0]",
            message: "root link \(root) matches none of the \(anchors.count) trust anchors, \(unknownRootMarker) "
              + closestAdvice(for: root, among: names)))
        continue
      }
      for link in roots where !trusted.contains(link) && (link > 0 || future.contains(link)) {
        let shape = link == 0 ? "the chain" : "the chain's shape from it"
        let message =
          future.contains(link)
          ? "\(chain.links[link]) is a root stores are about to carry (--future-anchors), not one of the \(anchors.count) trust anchors yet: \(shape) applies once they carry it"
          : "\(chain.links[link]) matches none of the \(anchors.count) trust anchors: \(shape) applies on stores that carry it"
        findings.append(CNLintFinding(severity: .note, path: "\(path).chainSet[\(index)][\(link)]", message: message))
      }
    }
    guard entry.isAppTransportSecurity else { return findings }
    for (index, pin) in entry.configuration.spkiPins.filter({ $0.scope == .ca }).enumerated()
    where !anchors.digests.contains(pin.sha256Base64) {
      findings.append(
        CNLintFinding(
          severity: .warning, path: "\(path).NSPinnedCAIdentities[\(index)]",
          message:
            "\(pin.sha256Base64) is the key of none of the \(anchors.count) trust anchors; expected if it pins an intermediate CA, otherwise no chain can satisfy it"
        ))
    }
    return findings
  }

  /// When more than one anchor satisfies the root link: which, and that any of them (or any other
  /// trusted root with such a name) passes the CN chain; nil when one or none does, or when the
  /// entry also pins a CA key, which binds the chain to that key.
  private static func manyAnchorsNote(_ root: CNChainLink, anchors: Anchors, keyPinned: Bool) -> String? {
    let matching = anchors.commonNames.filter { root.matches(commonName: $0) }
    guard matching.count > 1, !keyPinned else { return nil }
    let distinct = Array(Set(matching)).sorted()
    let named = distinct.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ") + (distinct.count > 5 ? ", …" : "")
    let same = distinct.count < matching.count ? " (some share a name with different keys)" : ""
    return "root link \(root) matches \(matching.count) of the \(anchors.count) trust anchors\(same): \(named); "
      + "any of them, and any root a device trusts with such a name, passes this chain; add the intended root's SPKI pin to bind it to one key"
  }

  private static func hasCAKeyPin(_ entry: CNPinningDocument.Entry) -> Bool {
    entry.configuration.spkiPins.contains { $0.scope != .leaf }
  }

  /// Names the anchors closest to `link` and a link that would match them.
  private static func closestAdvice(for link: CNChainLink, among names: [String]) -> String {
    let closest = closestNames(to: link.value, among: names)
    guard !closest.isEmpty else { return "no anchor has a similar name" }
    let quoted = closest.map { "\"\($0)\"" }.joined(separator: ", ")
    guard let suggestion = suggestedLink(matching: closest) else { return "closest anchors: \(quoted)" }
    return "closest anchors: \(quoted); \(suggestion) would match \(closest.count == 1 ? "it" : "them")"
  }

  /// The names sharing the longest start with `value` (ignoring case, at least four characters),
  /// else the one a typo would explain, at most five.
  private static func closestNames(to value: String, among names: [String]) -> [String] {
    let wanted = Array(value.lowercased())
    func shared(_ name: String) -> Int { zip(wanted, name.lowercased()).prefix { $0 == $1 }.count }
    let best = names.map(shared).max() ?? 0
    if best >= min(4, wanted.count) && best > 0 { return Array(names.filter { shared($0) == best }.prefix(5)) }
    return Suggestion.closest(to: value, among: names).map { [$0] } ?? []
  }

  /// The first of prefixWithNumber, exact (one name) and prefix that matches every name.
  private static func suggestedLink(matching names: [String]) -> CNChainLink? {
    guard var common = names.first.map(Array.init) else { return nil }
    for name in names.dropFirst() { common = Array(zip(common, name).prefix { $0 == $1 }.map(\.0)) }
    let stem = String(common).reversed().drop { $0.isASCII && $0.isNumber }.reversed()
    let candidates: [(CNChainLink.LinkType, String)] =
      [(.prefixWithNumber, String(stem))] + (names.count == 1 ? [(.exact, names[0])] : []) + [(.prefix, String(common))]
    return candidates.lazy.compactMap { try? CNChainLink($0.0, $0.1) }.first { link in
      names.allSatisfy { link.matches(commonName: $0) }
    }
  }
}
