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

    init(_ anchors: [CNCertificate]) {
      var keys: [String: Set<String>] = [:]
      var certificates: [String: Set<String>] = [:]
      for anchor in anchors {
        guard let name = anchor.commonName else { continue }
        keys[anchor.spkiSHA256Base64, default: []].insert(name)
        certificates[Data(anchor.sha256).base64EncodedString(), default: []].insert(name)
      }
      for known in CACatalogue.knownKeys {
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

  /// With `--rehearse`: each shape of a catalogued hierarchy that the host's chains name and do
  /// not accept, with the stores that verify it.
  static func rehearsal(_ entry: CNPinningDocument.Entry, path: String) -> [CNLintFinding] {
    let chains = entry.configuration.chains
    return CACatalogue.hierarchies(namedBy: chains).flatMap { hierarchy in
      CACatalogue.refused(of: hierarchy, by: chains).map { refused in
        let names = (refused.shape.above + [refused.issuing.joined(separator: " or ")]).map { VisibleText.quoted($0) }
        let backups = hierarchy.certificates.filter { $0.status == .backup && refused.issuing.contains($0.name) }.map(\.name)
        let backupNote =
          backups.isEmpty
          ? ""
          : " (\(backups.joined(separator: ", ")) \(backups.count == 1 ? "is a backup" : "are backups") the CA may issue from without warning)"
        return CNLintFinding(
          severity: .warning, path: "\(path).chainSet",
          message:
            "refuses \(hierarchy.name) as \(refused.shape.stores) verify it: [\(names.joined(separator: " → ")) → leaf]\(backupNote); add the shape (mark the root it starts at mayBeAnchor, or add a chain)"
        )
      }
    }
  }
}
