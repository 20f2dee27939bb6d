import Foundation

/// Checks that know certificates by key: a chain the host's own hash pins refuse, and the shapes
/// of a catalogued CA that a chainSet refuses (`--rehearse`).
extension CNConfigurationLinter {
  /// The certificates whose keys and hashes lint can name: the trust anchors, the roots about to
  /// be trusted, and the CA catalogue's.
  struct KnownCertificates {
    /// Common Names by SPKI SHA-256 (base64).
    let namesByKey: [String: Set<String>]
    /// Common Names by certificate SHA-256 (base64).
    let namesByCertificate: [String: Set<String>]

    init(_ anchors: [CNCertificate], catalogue: CACatalogue) {
      var keys: [String: Set<String>] = [:]
      var certificates: [String: Set<String>] = [:]
      for anchor in anchors {
        guard let name = anchor.commonName else { continue }
        keys[anchor.spkiSHA256Base64, default: []].insert(name)
        certificates[Data(anchor.sha256).base64EncodedString(), default: []].insert(name)
      }
      for known in catalogue.knownKeys {
        keys[known.spkiSHA256, default: []].insert(known.name)
        if let hash = known.certificateSHA256 { certificates[hash, default: []].insert(known.name) }
      }
      namesByKey = keys
      namesByCertificate = certificates
    }
  }

  /// The chains of `entry` that its CA-scoped hash pins refuse: when every pin of a scope group
  /// is a known certificate's, and none of those certificates' names is one a CA link of the
  /// chain accepts, no chain the CA issues along it can satisfy the pins. (A leaf's key is
  /// nobody's to know, so only `ca` groups are judged.)
  static func pinFindings(_ entry: CNPinningDocument.Entry, path: String, known: KnownCertificates) -> [CNLintFinding] {
    let configuration = entry.configuration
    let groups: [(key: String, hashes: [String], names: [String: Set<String>])] = [
      ("spkiPins", configuration.spkiPins.filter { $0.scope == .ca }.map(\.sha256Base64), known.namesByKey),
      (
        "certificatePins", configuration.certificatePins.filter { $0.scope == .ca }.map(\.sha256Base64),
        known.namesByCertificate
      ),
    ]
    var findings: [CNLintFinding] = []
    for group in groups where !group.hashes.isEmpty {
      let named = group.hashes.map { group.names[$0] }
      guard named.allSatisfy({ $0 != nil }) else { continue }
      let names = Set(named.compactMap { $0 }.joined())
      for (index, chain) in configuration.chains.enumerated() {
        let caLinks = chain.links.dropLast().filter(\.type.comparesCommonName)
        guard !caLinks.contains(where: { link in names.contains { link.matches(commonName: $0) } }) else { continue }
        let pinned = names.sorted().map { VisibleText.quoted($0) }.joined(separator: ", ")
        findings.append(
          CNLintFinding(
            severity: .error, path: "\(path).chainSet[\(index)]",
            message:
              "the host's \(group.key) (appliesTo ca) pin only \(pinned), which none of this chain's CA links names: every connection along it fails the \(group.key), so the chain is no backup; pin a key of its CAs too"
          ))
      }
    }
    return findings
  }

  /// With `--rehearse`, per CA (issue 64): for every operator a host's chains name, each shape
  /// of each of its families that issue or are announced (another key type's included: an ACME
  /// client's switch brings it overnight) that the chainSet refuses, with the stores that verify
  /// the shape and the family's dates; a warning each. A host whose chains accept only retired
  /// families is an error: it refuses every certificate issued after the last of their dates.
  static func rehearsal(_ entry: CNPinningDocument.Entry, path: String, catalogue: CACatalogue, now: Date)
    -> [CNLintFinding]
  {
    let chains = entry.configuration.chains
    let named = catalogue.families(namedBy: chains)
    guard !named.isEmpty else {
      // Said, so that a rehearsal that checked nothing is not read as one that found nothing.
      return [
        CNLintFinding(
          severity: .note, path: "\(path).chainSet",
          message:
            "nothing to rehearse: none of its chains names a catalogued CA (cnpin catalogue lists them); rehearse another CA's next chain with cnpin check --config FILE --chain NEXT.pem"
        )
      ]
    }
    let accepted = named.filter { CACatalogue.accepts($0, by: chains) }
    var findings: [CNLintFinding] = []
    if !accepted.isEmpty, !accepted.contains(where: { $0.status(at: now) != .retired }) {
      let last = accepted.compactMap(\.until).max() ?? "?"
      let successors = accepted.flatMap { catalogue.successors(of: $0, at: now) }.map(\.title)
      findings.append(
        CNLintFinding(
          severity: .error, path: "\(path).chainSet",
          message:
            "refuses every certificate issued after \(last): it accepts only \(accepted.map(\.title).joined(separator: " and ")), which stopped issuing by then (\(catalogue.label))\(successors.isEmpty ? "" : "; add \(successors.joined(separator: " and ")): cnpin pins --chain NEXT.pem --host \(entry.host) --add-to FILE")"
        ))
    }
    let operators = Set(named.map(\.operatorName))
    for family in catalogue.families where operators.contains(family.operatorName) && family.status(at: now) != .retired {
      for refused in CACatalogue.refused(of: family, by: chains) {
        let names = (refused.shape.above + [refused.issuing.joined(separator: " or ")]).map { VisibleText.quoted($0) }
        let backups = family.certificates.filter { $0.status == .backup && refused.issuing.contains($0.name) }.map(\.name)
        let backupNote =
          backups.isEmpty
          ? ""
          : " (\(backups.joined(separator: ", ")) \(backups.count == 1 ? "is a backup" : "are backups") the CA may issue from without warning)"
        findings.append(
          CNLintFinding(
            severity: .warning, path: "\(path).chainSet",
            message:
              "refuses \(family.title) (\(dates(of: family, at: now))) as \(refused.shape.stores) verify it: [\(names.joined(separator: " → ")) → leaf]\(backupNote); add the shape (mark the root it starts at mayBeAnchor, or add a chain)"
          ))
      }
    }
    return findings
  }

  /// A family's status on `date` and its dates in words: "current since 2026-05-13", "announced
  /// for 2026-05-13".
  package static func dates(of family: CACatalogue.Family, at date: Date) -> String {
    switch family.status(at: date) {
    case .announced: return family.since.map { "announced for \($0)" } ?? "announced"
    case .current: return family.since.map { "current since \($0)" } ?? "current"
    case .retiring: return "stops issuing on \(family.until ?? "?")"
    case .retired: return "stopped issuing on \(family.until ?? "?")"
    }
  }
}
