import Foundation

/// The outcome of evaluating a verified chain against the pins of a host.
public enum CNPinningResult: Sendable, Equatable {
  /// No configuration applies to the host; the transport's normal TLS validation decides alone.
  case notPinned
  /// A pinned chain matched.
  case accepted(CNPinningMatch)
  /// The host is pinned and the chain does not satisfy its pins (or cannot be evaluated).
  case rejected(CNPinningFailure)
  /// The chain does not satisfy the pins, but the configuration is report-only (`enforce:
  /// false`): the failure is reported and the connection goes on.
  case reportOnly(CNPinningFailure)

  /// Whether a connection may go on: the host is not pinned, its pins matched, or they are only
  /// reported.
  public var allowsConnection: Bool {
    if case .rejected = self { return false }
    return true
  }

  /// Whether a failure report could come of this result (`CNPinningReporter.report`): a
  /// failure, or a host not pinned, whose pins may have expired; never an acceptance.
  package var mayBeReported: Bool {
    if case .accepted = self { return false }
    return true
  }

  /// The failure, when the pins were not satisfied (enforced or not).
  public var failure: CNPinningFailure? {
    switch self {
    case .rejected(let failure), .reportOnly(let failure): return failure
    default: return nil
    }
  }
}

/// What satisfied the pins of a host.
public struct CNPinningMatch: Sendable, Equatable {
  /// Where the matching chain came from.
  public enum Source: Sendable, Equatable {
    /// The app's own configuration.
    case app
    /// The applied enterprise policy.
    case enterprisePolicy
  }

  /// The host evaluated, normalised (lower case, no trailing dot).
  public let host: String
  /// The configured domain whose configuration applied (the host itself or a parent domain).
  public let domain: String
  /// The configuration that applied.
  public let configuration: CNConfiguration
  /// Whether the app's configuration or the enterprise policy supplied the chain.
  public let source: Source
  /// The index of the chain that matched, in `configuration.chains` or in the policy's chains
  /// for the host; nil when the host declares no chains.
  public let chainIndex: Int?
  /// The chain that matched, as configured; nil when the host declares no chains.
  public let chain: CNChain?
  /// The shape of `chain` that matched (``CNChain/shapes``): the chain itself, or the tail of it
  /// that the trust store verified, starting at a link that may be the anchor.
  public let shape: CNChain?
  /// The SPKI pin that matched, when the host declares SPKI pins.
  public let spkiPin: CNSPKIPin?
  /// The certificate pin that matched, when the host declares certificate pins.
  public let certificatePin: CNCertificatePin?

  init(
    host: String, domain: String, configuration: CNConfiguration, source: Source, chainIndex: Int?, chain: CNChain?,
    verifiedLength: Int, spkiPin: CNSPKIPin?, certificatePin: CNCertificatePin?
  ) {
    self.host = host
    self.domain = domain
    self.configuration = configuration
    self.source = source
    self.chainIndex = chainIndex
    self.chain = chain
    self.shape = chain?.shapes.first { $0.links.count == verifiedLength }
    self.spkiPin = spkiPin
    self.certificatePin = certificatePin
  }
}

/// Why a pinned host's chain was rejected, with everything needed to act on it: a result value
/// (`CNPinningResult.rejected`), carried by `CNPinnedSessionError.pinMismatch`, never thrown.
public struct CNPinningFailure: Sendable, Equatable {
  /// What went wrong.
  public enum Reason: Sendable, Equatable {
    /// The host name cannot be pinned or looked up (why).
    case invalidHost(String)
    /// No certificates were given.
    case emptyChain
    /// None of the configured chains matches; one mismatch per configured chain, in order.
    case noMatchingChain([ChainMismatch])
    /// No SPKI pin matches a certificate in its scope (see ``presentedSPKIHashes``).
    case noMatchingSPKIPin([CNSPKIPin])
    /// No certificate pin matches a certificate in its scope (see ``presentedCertificateHashes``).
    case noMatchingCertificatePin([CNCertificatePin])

    /// The rule that failed, as failure reports name it.
    public var rule: String {
      switch self {
      case .invalidHost: return "host"
      case .emptyChain: return "chain"
      case .noMatchingChain: return "chainSet"
      case .noMatchingSPKIPin: return "spkiPins"
      case .noMatchingCertificatePin: return "certificatePins"
      }
    }
  }

  /// Why one configured chain does not match the verified chain.
  public enum ChainMismatch: Sendable, Equatable {
    /// The verified chain's length is none of the lengths of the chain's shapes (longest first;
    /// one length for a chain with no link that may be the anchor).
    case certificateCount(expected: [Int], actual: Int)
    /// The certificate at `position` (0 = root, counting towards the leaf) has a CN that the
    /// link does not accept.
    case commonName(position: Int, link: CNChainLink, commonName: String)
    /// The certificate at `position` has no CN usable for pinning.
    case unreadableCommonName(position: Int, link: CNChainLink, problem: CNCertificate.CommonNameProblem)
    /// The leaf at `position` is not valid for the `subjectAltName` link's value; its DNS and IP
    /// entries as written (empty when it has none).
    case subjectAltName(position: Int, link: CNChainLink, names: [String])
    /// The leaf at `position` has a subjectAltName extension that does not decode.
    case unreadableSubjectAltName(position: Int, link: CNChainLink)
  }

  /// The host evaluated, normalised when it could be.
  public let host: String
  /// The configured domain whose configuration applied, when one did.
  public let domain: String?
  /// The configuration that applied, when one did.
  public let configuration: CNConfiguration?
  /// The verified chain's Common Names, root → leaf; nil where a certificate has no usable CN.
  public let presentedCommonNames: [String?]
  /// The leaf's subjectAltName entries: how a leaf without a CN is named in the description.
  package let presentedLeafAltNames: [String]
  /// The verified chain's SPKI SHA-256 values (base64), root → leaf.
  public let presentedSPKIHashes: [String]
  /// The verified chain's certificate SHA-256 values (base64), root → leaf.
  public let presentedCertificateHashes: [String]
  /// What went wrong.
  public let reason: Reason
  /// The applied enterprise policy's chains for the host and why each does not match (tried
  /// before the app's own); empty when no policy applies.
  public let enterpriseMismatches: [EnterpriseMismatch]

  /// An enterprise policy chain for the host, and why it does not match the verified chain.
  public struct EnterpriseMismatch: Sendable, Equatable {
    /// The policy's chain, root → leaf.
    public let chain: CNChain
    /// Why it does not match.
    public let mismatch: ChainMismatch
  }
}

extension CNPinningFailure {
  /// The refusal of a host name that cannot name a host.
  static func invalidHost(_ host: String, reason: String, chain: CertificateChain) -> CNPinningFailure {
    let rootFirst = chain.rootFirst
    return CNPinningFailure(
      host: host, domain: nil, configuration: nil, presentedCommonNames: rootFirst.map(\.commonName),
      presentedLeafAltNames: chain.leaf?.subjectAltNameEntries ?? [],
      presentedSPKIHashes: rootFirst.map(\.spkiSHA256Base64),
      presentedCertificateHashes: rootFirst.map { Data($0.sha256).base64EncodedString() },
      reason: .invalidHost(reason), enterpriseMismatches: [])
  }
}

extension CNPinningFailure: CustomStringConvertible {
  public var description: String {
    let chain =
      "["
      + presentedCommonNames.enumerated().map { index, name in
        name.map { VisibleText.quoted($0) }
          ?? (index == presentedCommonNames.count - 1 && !presentedLeafAltNames.isEmpty
            ? VisibleText.escaped(CNCertificate.displayName(commonName: nil, altNames: presentedLeafAltNames, problem: nil))
            : "(no usable CN)")
      }
      .joined(separator: " → ") + "]"
    switch reason {
    case .invalidHost(let why):
      return "Pinning rejected host \"\(host)\": \(why)"
    case .emptyChain:
      return "Pinning rejected \(host): the verified chain is empty"
    case .noMatchingSPKIPin(let pins):
      return "Pin mismatch for \(host): no SPKI pin matches the verified chain \(chain) (root → leaf); "
        + "pinned: " + pins.map { "\($0.sha256Base64) (\($0.scope.rawValue))" }.joined(separator: ", ")
        + "; presented: " + presentedSPKIHashes.joined(separator: ", ")
    case .noMatchingCertificatePin(let pins):
      return "Pin mismatch for \(host): no certificate pin matches the verified chain \(chain) (root → leaf); "
        + "pinned: " + pins.map { "\($0.sha256Base64) (\($0.scope.rawValue))" }.joined(separator: ", ")
        + "; presented: " + presentedCertificateHashes.joined(separator: ", ")
    case .noMatchingChain(let mismatches):
      let origin =
        domain.map { $0 == host ? "" : " (pinned through \($0), which includes subdomains)" } ?? ""
      let details = mismatches.enumerated().map { index, mismatch in
        let chain = configuration.flatMap { $0.chains.indices.contains(index) ? $0.chains[index] : nil }
        return "chain \(index) \(chain.map { Self.compared($0, presented: presentedCommonNames.count) } ?? ""): \(mismatch)"
      }
      let enterprise = enterpriseMismatches.enumerated().map { index, entry in
        "enterprise policy chain \(index) \(Self.compared(entry.chain, presented: presentedCommonNames.count)): \(entry.mismatch)"
      }
      let count = mismatches.count + enterpriseMismatches.count
      return "Pin mismatch for \(host)\(origin): the verified chain \(chain) (root → leaf) "
        + "matches none of the \(count) pinned chain\(count == 1 ? "" : "s"); "
        + (enterprise + details).joined(separator: "; ")
    }
  }
}

extension CNPinningFailure {
  /// A configured chain, and the shape of it that was compared with a verified chain of
  /// `presented` certificates when that is not the whole chain.
  static func compared(_ chain: CNChain, presented: Int) -> String {
    guard chain.links.count != presented, let shape = chain.shapes.first(where: { $0.links.count == presented }) else {
      return chain.description
    }
    return "\(chain), as its shape of \(presented) from \(VisibleText.quoted(shape.links[0].value))"
  }
}

extension CNPinningFailure.ChainMismatch: CustomStringConvertible {
  /// How many subjectAltName entries a description lists (a CDN's leaf may have hundreds).
  static let namesShown = 8

  public var description: String {
    switch self {
    case .certificateCount(let expected, let actual):
      let lengths = expected.map(String.init)
      let written = lengths.count == 1 ? lengths[0] : lengths.dropLast().joined(separator: ", ") + " or " + lengths.last!
      return "expected \(written) certificate\(expected == [1] ? "" : "s"), the verified chain has \(actual)"
    case .commonName(let position, let link, let commonName):
      return "certificate \(position) (root → leaf) has CN \(VisibleText.quoted(commonName)), which does not match \(link)"
    case .unreadableCommonName(let position, let link, let problem):
      return "certificate \(position) (root → leaf) cannot match \(link): \(problem)"
    case .subjectAltName(let position, let link, let names) where names.isEmpty:
      return "certificate \(position) (root → leaf) has no subjectAltName, so it cannot match \(link)"
    case .subjectAltName(let position, let link, let names):
      let shown = names.prefix(Self.namesShown).map { VisibleText.quoted($0) }.joined(separator: ", ")
      let more = names.count > Self.namesShown ? " and \(names.count - Self.namesShown) more" : ""
      return "certificate \(position) (root → leaf) is valid for \(shown)\(more), which does not match \(link)"
    case .unreadableSubjectAltName(let position, let link):
      return "certificate \(position) (root → leaf) has a subjectAltName that does not decode, so it cannot match \(link)"
    }
  }
}
