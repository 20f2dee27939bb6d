/// A pinned chain: one link per certificate, written root → leaf (the order people read a chain).
///
/// A verified chain's length depends on the trust store that verified it: Let's Encrypt's ECDSA
/// chain is `ISRG Root X1` → `ISRG Root X2` → `Root YE` → `YE1` → leaf on a store that trusts
/// only X1, four certificates on one that trusts X2, three on one that trusts Root YE. Marking
/// the links a store may hold as roots (`mayBeAnchor`) writes all three in one chain, which
/// stands for exactly its `shapes`: itself, and each tail that starts at a marked link.
///
/// A shape matches a verified chain only when both have the same number of certificates and
/// every certificate satisfies its link.
public struct CNChain: Hashable, Sendable {
  /// The links, root first, leaf last.
  public let links: [CNChainLink]

  /// Creates a chain from links written root → leaf. Throws `CNConfigurationError`: `emptyChain`
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
    self.links = links
  }

  /// The chains this chain stands for, longest first: itself, then for each link after the
  /// first that is marked `mayBeAnchor`, the chain from that link to the leaf (its root is that
  /// link, as a trust store that holds the CA as a root verifies it).
  public var shapes: [CNChain] {
    links.indices.filter { $0 == 0 || links[$0].mayBeAnchor }.map { CNChain(verified: Array(links[$0...])) }
  }

  /// The numbers of certificates the shapes have, longest first.
  public var shapeLengths: [Int] {
    links.indices.filter { $0 == 0 || links[$0].mayBeAnchor }.map { links.count - $0 }
  }

  /// A tail of a valid chain, which is valid.
  private init(verified links: [CNChainLink]) { self.links = links }
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
