/// How `cnpin pins` (and the demonstration) turns verified chains into pins: each CA's name into
/// the link that accepts the CA's next name of the same naming scheme and refuses other names,
/// the leaf into a `subjectAltName` link for the host, and the shapes a store may verify into one
/// chain whose other roots may be the anchor.
package enum SuggestedPins {
  /// A CA certificate of the chain has no usable Common Name, so it cannot be pinned by CN.
  package struct Unpinnable: Error, CustomStringConvertible {
    /// Its position, counted root → leaf.
    package let position: Int
    package let problem: String
    package var description: String { "certificate \(position) (root → leaf) cannot be pinned by CN: \(problem)" }
  }

  /// How CAs name a family's next certificate, from the one home of the rule. The schemes seen
  /// in 2026 (the table in `Tests/CNPinningTests/NamingSchemeTests.swift` holds real names of each):
  package enum NamingScheme: Equatable {
    /// The year and the quarter change (GlobalSign: `GlobalSign Atlas R46 DV TLS CA 2026 Q3`,
    /// then `… 2026 Q4`, `… 2027 Q1`): `prefix` up to the year, the space included.
    case yearAndQuarter(prefix: String)
    /// The year and a counter change (DigiCert: `DigiCert Global G2 TLS RSA SHA256 2020 CA1`):
    /// `prefix` up to the year, the space included.
    case yearAndCounter(prefix: String)
    /// A trailing number changes (Let's Encrypt `YR1` → `YR2`, GTS `WR1`, Sectigo `… DV R36`,
    /// Amazon `M01` → `M04`, Apple `… CA 1 - G3` → `G4`, Microsoft `… Issuing CA 03` → `07`):
    /// `prefixWithNumber` on the part before it.
    case trailingNumber(stem: String)
    /// No part of the name is known to change: `exact`.
    case fixed

    /// The scheme of `name`.
    package init(of name: String) {
      let words = name.split(separator: " ", omittingEmptySubsequences: false)
      if words.count >= 3, Self.isYear(words[words.count - 2]) {
        let prefix = words.dropLast(2).joined(separator: " ") + " "
        if Self.isNumbered(words.last!, after: "Q") {
          self = .yearAndQuarter(prefix: prefix)
          return
        }
        if Self.isNumbered(words.last!, after: "CA") {
          self = .yearAndCounter(prefix: prefix)
          return
        }
      }
      let digits = name.utf8.reversed().prefix { $0 >= 0x30 && $0 <= 0x39 }.count
      self = digits > 0 && digits < name.utf8.count ? .trailingNumber(stem: String(name.utf8.dropLast(digits))!) : .fixed
    }

    /// The link that accepts the names of this scheme, for a name of it.
    package func link(for name: String) throws(CNConfigurationError) -> CNChainLink {
      switch self {
      case .yearAndQuarter(let prefix), .yearAndCounter(let prefix): return try CNChainLink(.prefix, prefix)
      case .trailingNumber(let stem): return try CNChainLink(.prefixWithNumber, stem)
      case .fixed: return try CNChainLink(.exact, name)
      }
    }

    /// A four-digit year from 2000 to 2099.
    private static func isYear(_ word: Substring) -> Bool {
      word.utf8.count == 4 && word.hasPrefix("20") && word.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `letters` followed by one or more ASCII digits.
    private static func isNumbered(_ word: Substring, after letters: String) -> Bool {
      word.hasPrefix(letters) && word.utf8.count > letters.utf8.count
        && word.utf8.dropFirst(letters.utf8.count).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
  }

  /// The link for a CA's Common Name.
  package static func link(for commonName: String) throws(CNConfigurationError) -> CNChainLink {
    try NamingScheme(of: commonName).link(for: commonName)
  }

  /// The pinned chain for the shapes a store may verify, each root → leaf and ending with the
  /// same leaf: the longest one's CAs by name, its leaf by `host` (a `subjectAltName` link), the
  /// first certificate of every shorter shape marked `mayBeAnchor`. Shapes that are not tails
  /// of the longest are left out (`chains(for:host:)` makes one chain per family). Throws
  /// ``Unpinnable`` for a CA without a usable Common Name, ``CNConfigurationError`` for a host that
  /// is not a valid subjectAltName value.
  package static func chain(shapes: [[CNCertificate]], host: String) throws -> CNChain {
    guard let longest = shapes.max(by: { $0.count < $1.count }), !longest.isEmpty else {
      throw CNConfigurationError(.emptyChain)
    }
    let anchors = Set(shapes.filter { isTail($0, of: longest) }.map { longest.count - $0.count })
    var links: [CNChainLink] = []
    for (position, certificate) in longest.dropLast().enumerated() {
      guard let name = certificate.commonName else {
        throw Unpinnable(position: position, problem: certificate.commonNameProblem.map { "\($0)" } ?? "no Common Name")
      }
      let link = try link(for: name)
      links.append(try CNChainLink(link.type, link.value, mayBeAnchor: position > 0 && anchors.contains(position)))
    }
    links.append(try CNChainLink(.subjectAltName, HostName.unbracketed(host)))
    return try CNChain(links)
  }

  /// One chain per family of shapes (shapes that are tails of one another), longest first.
  package static func chains(for shapes: [[CNCertificate]], host: String) throws -> [CNChain] {
    var remaining = shapes.sorted { $0.count > $1.count }
    var chains: [CNChain] = []
    while let longest = remaining.first {
      let family = remaining.filter { isTail($0, of: longest) }
      remaining.removeAll { isTail($0, of: longest) }
      let chain = try chain(shapes: family, host: host)
      if !chains.contains(chain) { chains.append(chain) }
    }
    return chains
  }

  /// The pinned chains that accept every shape of a catalogued `family` with each of its issuing
  /// CAs (by their naming scheme), as ``chains(for:host:)`` makes them from a server's certificates:
  /// one per group of shapes that are tails of one another, its other roots marked `mayBeAnchor`.
  /// What a suggestion adds for the family that succeeds the chain's (issue 64).
  package static func chains(for family: CACatalogue.Family, host: String) throws -> [CNChain] {
    var remaining = family.shapes.map(\.above).sorted { $0.count > $1.count }
    var issuingLinks: [CNChainLink] = []
    for name in family.issuing {
      let link = try link(for: name)
      if !issuingLinks.contains(link) { issuingLinks.append(link) }
    }
    let leaf = try CNChainLink(.subjectAltName, HostName.unbracketed(host))
    var chains: [CNChain] = []
    while let longest = remaining.first {
      let group = remaining.filter { longest.suffix($0.count).elementsEqual($0) }
      remaining.removeAll { longest.suffix($0.count).elementsEqual($0) }
      let starts = Set(group.map { longest.count - $0.count })
      var links: [CNChainLink] = []
      for (position, name) in longest.enumerated() {
        let link = try link(for: name)
        links.append(try CNChainLink(link.type, link.value, mayBeAnchor: position > 0 && starts.contains(position)))
      }
      for issuing in issuingLinks {
        let chain = try CNChain(links + [issuing, leaf])
        if !chains.contains(chain) { chains.append(chain) }
      }
    }
    return chains
  }

  /// The configuration `cnpin pins` suggests for the shapes of a host's verified chains.
  package static func configuration(shapes: [[CNCertificate]], host: String, includesSubdomains: Bool) throws
    -> CNConfiguration
  {
    try CNConfiguration(includesSubdomains: includesSubdomains, try chains(for: shapes, host: host))
  }

  /// Whether `shape` is `chain` without some of its first certificates: the same CAs (name and
  /// key) from where it starts to the leaf.
  private static func isTail(_ shape: [CNCertificate], of chain: [CNCertificate]) -> Bool {
    guard shape.count <= chain.count, !shape.isEmpty else { return false }
    return zip(shape, chain.suffix(shape.count)).allSatisfy { $0 == $1 || $0.isSameCA(as: $1) }
  }
}
