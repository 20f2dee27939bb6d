/// The outcome of evaluating a verified chain against the pins of a host.
public enum CNPinningResult: Sendable, Equatable {
  /// No configuration applies to the host; the transport's normal TLS validation decides alone.
  case notPinned
  /// A pinned chain matched.
  case accepted(CNPinningMatch)
  /// The host is pinned and the chain does not satisfy its pins (or cannot be evaluated).
  case rejected(CNPinningFailure)

  /// Whether a connection may go on: the host is not pinned or its pins matched.
  public var allowsConnection: Bool {
    if case .rejected = self { return false }
    return true
  }
}

/// What satisfied the pins of a host.
public struct CNPinningMatch: Sendable, Equatable {
  /// The host evaluated, normalised (lower case, no trailing dot).
  public let host: String
  /// The configured domain whose configuration applied (the host itself or a parent domain).
  public let domain: String
  /// The configuration that applied.
  public let configuration: CNConfiguration
  /// The index in `configuration.chains` of the chain that matched.
  public let chainIndex: Int

  /// The chain that matched.
  public var chain: CNChain { configuration.chains[chainIndex] }
}

/// Why a pinned host's chain was rejected, with everything needed to act on it.
public struct CNPinningFailure: Error, Sendable, Equatable {
  /// What went wrong.
  public enum Reason: Sendable, Equatable {
    /// The host name cannot be pinned or looked up (why).
    case invalidHost(String)
    /// No certificates were given.
    case emptyChain
    /// None of the configured chains matches; one mismatch per configured chain, in order.
    case noMatchingChain([ChainMismatch])
  }

  /// Why one configured chain does not match the verified chain.
  public enum ChainMismatch: Sendable, Equatable {
    /// The chains have different lengths.
    case certificateCount(expected: Int, actual: Int)
    /// The certificate at `position` (0 = root, counting towards the leaf) has a CN that the
    /// link does not accept.
    case commonName(position: Int, link: CNChainLink, commonName: String)
    /// The certificate at `position` has no CN usable for pinning.
    case unreadableCommonName(position: Int, link: CNChainLink, problem: CNCertificate.CommonNameProblem)
  }

  /// The host evaluated, normalised when it could be.
  public let host: String
  /// The configured domain whose configuration applied, when one did.
  public let domain: String?
  /// The configuration that applied, when one did.
  public let configuration: CNConfiguration?
  /// The verified chain's Common Names, root → leaf; nil where a certificate has no usable CN.
  public let presentedCommonNames: [String?]
  /// What went wrong.
  public let reason: Reason
}

extension CNPinningFailure: CustomStringConvertible {
  public var description: String {
    let chain = "[" + presentedCommonNames.map { $0.map { "\"\($0)\"" } ?? "(no usable CN)" }
      .joined(separator: " → ") + "]"
    switch reason {
    case .invalidHost(let why):
      return "Pinning rejected host \"\(host)\": \(why)"
    case .emptyChain:
      return "Pinning rejected \(host): the verified chain is empty"
    case .noMatchingChain(let mismatches):
      let origin =
        domain.map { $0 == host ? "" : " (pinned through \($0), which includes subdomains)" } ?? ""
      let details = mismatches.enumerated().map { index, mismatch in
        "chain \(index) \(configuration.map { $0.chains[index].description } ?? ""): \(mismatch)"
      }
      return "Pin mismatch for \(host)\(origin): the verified chain \(chain) (root → leaf) "
        + "matches none of the \(mismatches.count) pinned chain\(mismatches.count == 1 ? "" : "s"); "
        + details.joined(separator: "; ")
    }
  }
}

extension CNPinningFailure.ChainMismatch: CustomStringConvertible {
  public var description: String {
    switch self {
    case .certificateCount(let expected, let actual):
      return "expected \(expected) certificate\(expected == 1 ? "" : "s"), the verified chain has \(actual)"
    case .commonName(let position, let link, let commonName):
      return "certificate \(position) (root → leaf) has CN \"\(commonName)\", which does not match \(link)"
    case .unreadableCommonName(let position, let link, let problem):
      return "certificate \(position) (root → leaf) cannot match \(link): \(problem)"
    }
  }
}
