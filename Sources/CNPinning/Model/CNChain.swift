/// A pinned chain: one link per certificate, written root → leaf (the order people read a chain).
///
/// A chain matches a verified chain only when both have the same number of certificates and every
/// certificate's Common Name satisfies its link.
public struct CNChain: Hashable, Sendable {
  /// The links, root first, leaf last.
  public let links: [CNChainLink]

  /// Creates a chain from links written root → leaf. Throws `CNConfigurationError.Problem.emptyChain` when empty.
  public init(_ links: [CNChainLink]) throws(CNConfigurationError) {
    guard !links.isEmpty else { throw CNConfigurationError(.emptyChain) }
    self.links = links
  }
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
