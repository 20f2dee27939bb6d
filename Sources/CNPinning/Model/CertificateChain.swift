/// A chain as verification builds it, with its direction kept by the type: made from the
/// certificates as OpenSSL and Security give them (the leaf, then each issuer up to the trust
/// anchor), read root first, as chains are written, pinned and printed. Nothing outside this type
/// turns a chain around.
package struct CertificateChain: Sendable, Equatable {
  /// Leaf first, as verification gives them.
  private let fromLeaf: [CNCertificate]

  package init(leafFirst certificates: [CNCertificate]) { fromLeaf = certificates }
  package init(rootFirst certificates: some BidirectionalCollection<CNCertificate>) { fromLeaf = certificates.reversed() }

  /// Root first: the anchor, the intermediates, the leaf (a view: nothing is copied).
  package var rootFirst: ReversedCollection<[CNCertificate]> { fromLeaf.reversed() }
  /// Leaf first, for the APIs that take chains as verification gives them.
  package var leafFirst: [CNCertificate] { fromLeaf }
  package var count: Int { fromLeaf.count }
  package var isEmpty: Bool { fromLeaf.isEmpty }
  package var leaf: CNCertificate? { fromLeaf.first }

  /// Each certificate with its position counted root → leaf, from the leaf up (the order a
  /// mismatch is looked for in: the leaf's is the one people fix first).
  package var fromLeafWithPositions: [(position: Int, certificate: CNCertificate)] {
    fromLeaf.enumerated().map { (fromLeaf.count - 1 - $0.offset, $0.element) }
  }
}
