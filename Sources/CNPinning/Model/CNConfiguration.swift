/// The pins for one configured domain: the chains it accepts and whether subdomains share them.
public struct CNConfiguration: Sendable, Equatable {
  /// Whether hosts below this domain (on a label boundary) use this configuration when they have
  /// no configuration of their own.
  public let includesSubdomains: Bool
  /// The accepted chains; any one matching the verified chain is enough.
  public let chains: [CNChain]

  /// Creates a configuration. Throws `CNParseError.noChainsDefined` for an empty chain set and
  /// `CNParseError.duplicateChain(index)` for a chain that repeats an earlier one.
  public init(includesSubdomains: Bool = false, _ chains: [CNChain]) throws {
    guard !chains.isEmpty else { throw CNParseError.noChainsDefined }
    var seen = Set<CNChain>()
    for (index, chain) in chains.enumerated() where !seen.insert(chain).inserted {
      throw CNParseError.duplicateChain(index)
    }
    self.includesSubdomains = includesSubdomains
    self.chains = chains
  }
}
