/// The big CAs' hierarchies in every shape a trust store may verify them: real names, the stores
/// that produce each shape, current and announced-backup issuing CAs, and each certificate's
/// SPKI SHA-256 where its CA publishes the certificate. The data is `CACatalogue.hierarchies`
/// (`CACatalogue+Hierarchies.swift`, one entry per hierarchy, easy to extend); `cnpin lint
/// --rehearse` names the shapes a chainSet refuses, and lint identifies pinned keys by it.
package enum CACatalogue {
  /// One certificate of a hierarchy.
  package struct Certificate: Sendable {
    /// Its subject's Common Name.
    package let name: String
    /// How it stands in the hierarchy, in words (`root`, `cross-signed by ISRG Root X1, issued
    /// 2026-05-13`, `issuing CA`).
    package let role: String
    package let status: Status
    /// Base64 SHA-256 of its SubjectPublicKeyInfo; nil where no certificate could be read here.
    package let spkiSHA256: String?
    /// Base64 SHA-256 of the certificate; nil likewise.
    package let certificateSHA256: String?
    /// Where the certificate (or the statement about it) was read, and when.
    package let source: String
    /// The last day the certificate is valid (`notAfter`, `YYYY-MM-DD`), where the catalogue
    /// records it: what `cnpin convert` names as the soonest rotation of an exported key.
    package var validUntil: String? = nil
  }

  /// Whether a CA issues today.
  package enum Status: String, Sendable {
    /// In use.
    case current
    /// Valid, announced as a backup: the CA may issue from it "at any time, without warning".
    case backup
    /// No longer issuing, or expired.
    case retired
    /// Replaced by a certificate with the same name and key (a re-issued cross-sign).
    case replaced
  }

  /// A chain shape, root first, without its issuing CA and leaf: what a store verifies above the
  /// issuing CA.
  package struct Shape: Sendable {
    package let above: [String]
    /// The stores that verify this shape.
    package let stores: String
  }

  /// A CA's hierarchy for one key type.
  package struct Hierarchy: Sendable {
    package let name: String
    package let certificates: [Certificate]
    /// The issuing CAs, current and backup.
    package let issuing: [String]
    package let shapes: [Shape]
    /// Whether the hierarchy still issues (a retired one is kept for its keys).
    package let issues: Bool
  }

  /// The hierarchies whose issuing CAs one of `chains`' links names at an issuing CA's place.
  package static func hierarchies(namedBy chains: [CNChain]) -> [Hierarchy] {
    hierarchies.filter { hierarchy in
      hierarchy.issues
        && chains.contains { chain in
          chain.links.count >= 2
            && hierarchy.issuing.contains { chain.links[chain.links.count - 2].matches(commonName: $0) }
        }
    }
  }

  /// What `chains` refuse of `hierarchy`: each shape with the issuing CAs no chain accepts in it.
  package static func refused(of hierarchy: Hierarchy, by chains: [CNChain]) -> [(shape: Shape, issuing: [String])] {
    hierarchy.shapes.compactMap { shape in
      let refused = hierarchy.issuing.filter { issuing in !chains.contains { $0.accepts(caNames: shape.above + [issuing]) } }
      return refused.isEmpty ? nil : (shape, refused)
    }
  }

  /// The catalogue's certificates with a known key, by name.
  package static var knownKeys: [(name: String, spkiSHA256: String, certificateSHA256: String?)] {
    hierarchies.flatMap(\.certificates).compactMap { certificate in
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
