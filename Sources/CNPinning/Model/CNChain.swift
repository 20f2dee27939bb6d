/// A pinned chain: one link per certificate, written root → leaf (the order people read a chain).
///
/// A verified chain's length depends on the trust store that verified it: Let's Encrypt's ECDSA
/// chain is `ISRG Root X1` → `ISRG Root X2` → `Root YE` → `YE1` → leaf on a store that trusts
/// only X1, four certificates on one that trusts X2, three on one that trusts Root YE. Marking
/// the links a store may hold as roots (`mayBeAnchor`) writes all three in one chain, which
/// stands for exactly its `shapes`: itself, and each tail that starts at a marked link.
///
/// A shape matches a verified chain only when both have the same number of certificates and
/// every certificate satisfies its link. This is the rule's one home: the shapes are computed
/// here, once when the chain is made, and evaluation, results, lint, export and suggestions
/// read them from here.
public struct CNChain: Hashable, Sendable {
  /// The links, root first, leaf last.
  public let links: [CNChainLink]
  /// The tails this chain stands for besides itself (each with its own), longest first.
  private let tails: [CNChain]

  /// Creates a chain from links written root → leaf. Throws ``CNConfigurationError``: `emptyChain`
  /// when empty, `misplacedLink(index)` for a `subjectAltName` link before the last, or for the
  /// last link marked `mayBeAnchor` (the leaf is never the anchor).
  public init(_ links: [CNChainLink]) throws(CNConfigurationError) {
    guard !links.isEmpty else { throw CNConfigurationError(.emptyChain) }
    if let index = links.dropLast().firstIndex(where: { $0.type == .subjectAltName }) {
      throw CNConfigurationError(
        .misplacedLink(index, reason: "a subjectAltName link names the leaf, so only the last link can have that type"))
    }
    if links.count > 1, links[links.count - 1].mayBeAnchor {
      throw CNConfigurationError(
        .misplacedLink(
          links.count - 1, reason: "the last link is the leaf, which is never the trust anchor; mark a CA's link mayBeAnchor"))
    }
    self.init(verified: links)
  }

  /// A valid chain (or a tail of one, which is valid) and its shapes.
  private init(verified links: [CNChainLink]) {
    self.links = links
    tails = links.indices.dropFirst().filter { links[$0].mayBeAnchor }.map { CNChain(verified: Array(links[$0...])) }
  }

  /// The chains this chain stands for, longest first: itself, then for each link after the
  /// first that is marked `mayBeAnchor`, the chain from that link to the leaf (its root is that
  /// link, as a trust store that holds the CA as a root verifies it).
  public var shapes: [CNChain] { [CNChain(links: links)] + tails.map { CNChain(links: $0.links) } }

  /// The numbers of certificates the shapes have, longest first.
  public var shapeLengths: [Int] { [links.count] + tails.map(\.links.count) }

  /// The shape with `count` links, the one a verified chain of `count` certificates is judged by.
  package func shape(ofLength count: Int) -> [CNChainLink]? {
    if count == links.count { return links }
    return tails.first { $0.links.count == count }?.links
  }

  /// Whether a shape matches `chain`, certificate by certificate.
  package func matches(_ chain: CertificateChain) -> Bool {
    guard let shape = shape(ofLength: chain.count) else { return false }
    return zip(shape, chain.rootFirst).allSatisfy { $0.matches($1) }
  }

  /// Why no shape matches `chain`: the number of certificates, or the first link that fails,
  /// looked for from the leaf.
  package func mismatch(_ chain: CertificateChain) -> CNPinningFailure.ChainMismatch {
    guard let shape = shape(ofLength: chain.count) else {
      return .certificateCount(expected: shapeLengths, actual: chain.count)
    }
    for (position, certificate) in chain.fromLeafWithPositions {
      let link = shape[position]
      if link.type == .subjectAltName {
        if link.matches(certificate) { continue }
        switch certificate.subjectAlternativeNames {
        case .malformed: return .unreadableSubjectAltName(position: position, link: link)
        case .absent: return .subjectAltName(position: position, link: link, names: [])
        case .present(let names, _):
          return .subjectAltName(position: position, link: link, names: names.dnsNames + names.ipAddresses)
        }
      }
      guard let commonName = certificate.commonName else {
        return .unreadableCommonName(position: position, link: link, problem: certificate.commonNameProblem!)
      }
      if !link.matches(commonName: commonName) {
        return .commonName(position: position, link: link, commonName: commonName)
      }
    }
    preconditionFailure("a chain reported as mismatching matched")
  }

  /// A shape as a chain of its own: its links, and no tails (a shape stands for itself only).
  private init(links: [CNChainLink]) {
    self.links = links
    tails = []
  }

  public static func == (lhs: CNChain, rhs: CNChain) -> Bool { lhs.links == rhs.links }
  public func hash(into hasher: inout Hasher) { hasher.combine(links) }
}

extension CNChain: Codable {
  public init(from decoder: any Decoder) throws {
    try self.init(try decoder.singleValueContainer().decode([CNChainLink].self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(links)
  }
}

extension CNChain: CustomStringConvertible {
  public var description: String { "[" + links.map(\.description).joined(separator: " → ") + "]" }
}
