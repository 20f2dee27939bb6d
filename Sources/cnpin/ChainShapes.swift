import CNPinning
import CNPinningSession
import Foundation

/// The shapes a host's chain takes on the trust stores of today and tomorrow: the certificates a
/// server sends (or a chain file holds) verified by OpenSSL, as the session verifies them, once
/// per root that a store holds or is about to hold. Each shape is a chain OpenSSL built and
/// verified (signatures, CA flags, validity, the host), never one assembled from names, so a
/// server cannot make a suggestion pin a root it did not chain to (issue 56, item 3).
enum ChainShapes {
  /// The verified chains, root → leaf, one per root among `roots` that the certificates chain to
  /// for `host` at `date`, longest first, without repeats. `sent` is the leaf, then whatever came
  /// with it.
  static func verified(_ sent: [CNCertificate], host: String, roots: [CNCertificate], at date: Date = Date()) throws(CLIError)
    -> [[CNCertificate]]
  {
    #if CNPINNING_LINUX_BACKEND
    var shapes: [[CNCertificate]] = []
    for root in candidates(roots, for: sent) {
      var configuration = CNPinnedSessionConfiguration()
      configuration.trust = .customAnchors([root])
      let evaluator: CNTrustEvaluator
      do {
        evaluator = try CNTrustEvaluator(configuration: configuration)
      } catch {
        throw .usage("\(error)")
      }
      guard let chain = try? evaluator.verify(sent, for: host, at: date) else { continue }
      let rootFirst = Array(CertificateChain(leafFirst: chain).rootFirst)
      if !shapes.contains(rootFirst) { shapes.append(rootFirst) }
    }
    return shapes.sorted { $0.count > $1.count }
    #else
    throw .usage("finding a chain's shapes needs the Linux build of cnpin: it verifies with OpenSSL, as the Linux session does")
    #endif
  }

  /// The self-signed roots that could anchor `sent`: those whose name issued one of its
  /// certificates, or that are one of them (the same CA, name and key). Verification decides.
  private static func candidates(_ roots: [CNCertificate], for sent: [CNCertificate]) -> [CNCertificate] {
    var seen = Set<CNCertificate>()
    return roots.filter { root in
      root.isSelfIssued && seen.insert(root).inserted
        && sent.contains { $0.isIssued(byNameOf: root) || $0.isSameCA(as: root) }
    }
  }

  /// The roots of `trust` and of `--future-anchors`, for `verified`.
  static func roots(_ trust: CNTrust, future path: String?) throws(CLIError) -> [CNCertificate] {
    let anchors = (try? trust.anchorCertificates()) ?? []
    guard let path else { return anchors }
    guard case .customAnchors(let future) = try NetworkOptions.anchors(inPEMFile: path) else { return anchors }
    return anchors + future
  }
}
