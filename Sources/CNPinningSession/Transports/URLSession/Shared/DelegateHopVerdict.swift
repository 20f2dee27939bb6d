import CNPinning
import CNPinningSessionCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What URLSession's task metrics say about the connection a request used.
struct TransactionFacts: Sendable, Equatable {
  let isReusedConnection: Bool
  /// The TLS version (0x0304 is TLS 1.3), when known.
  let tlsVersion: UInt16?
  /// The ALPN protocol ("h2", "http/1.1"), when known.
  let applicationProtocol: String?

  /// The facts of the last transaction (the one that produced the response); nil when there was none.
  init?(_ metrics: URLSessionTaskMetrics) {
    guard let last = metrics.transactionMetrics.last else { return nil }
    self.init(
      isReusedConnection: last.isReusedConnection, tlsVersion: last.negotiatedTLSProtocolVersion?.rawValue,
      applicationProtocol: last.networkProtocolName)
  }

  init(isReusedConnection: Bool, tlsVersion: UInt16?, applicationProtocol: String?) {
    self.isReusedConnection = isReusedConnection
    self.tlsVersion = tlsVersion
    self.applicationProtocol = applicationProtocol
  }
}

/// The judgements of a hop whose challenges a URLSession delegate answered, completed for what
/// URLSession does not ask about, and whether the hop may stand. URLSession challenges server
/// trust only when it opens a connection, and maybe not even then when it resumes a cached TLS
/// session; so a hop that must be judged and saw no challenge stands only on a connection this
/// URLSession opened and judged before. Platform-neutral, tested on Linux.
enum DelegateHopVerdict {
  /// `challenged`: the judgements of this hop's challenges; `remembered`: the last accepted
  /// judgement of a connection to the same host and port in the same URLSession; `facts`: from
  /// the task's metrics, when they arrived; `mustBeJudged`: the host is pinned, or custom anchors
  /// or `unpinnedHosts: .deny` apply to it.
  static func complete(
    host: String, challenged: [Judgement], remembered: Judgement?, facts: TransactionFacts?, mustBeJudged: Bool
  ) -> (judgements: [Judgement], refusal: CNPinnedSessionError?) {
    var judgements = challenged
    if judgements.isEmpty {
      if let remembered, facts?.isReusedConnection != false {
        judgements = [
          Judgement(
            use: .reused, verifiedChain: remembered.verifiedChain, presentedChain: [], pinning: remembered.pinning,
            rejection: nil)
        ]
      } else if mustBeJudged {
        let refusal = CNPinnedSessionError.untrustedChain(
          host: host,
          reason:
            "URLSession used a connection it did not ask the pins about (a resumed TLS session, or one opened by another host's request); refused rather than unjudged"
        )
        return ([Judgement(use: .resumed, verifiedChain: [], presentedChain: [], pinning: nil, rejection: refusal)], refusal)
      } else {
        judgements = [
          Judgement(
            use: facts?.isReusedConnection == true ? .reused : .new, verifiedChain: [], presentedChain: [], pinning: nil,
            rejection: nil)
        ]
      }
    }
    // The challenge was answered before the metrics said what the connection negotiated.
    guard let facts else { return (judgements, nil) }
    return (judgements.map { Judgement($0, negotiated: facts) }, nil)
  }
}

extension Judgement {
  /// `judgement`, made on the connection whose negotiated version and protocol `facts` tell.
  init(_ judgement: Judgement, negotiated facts: TransactionFacts) {
    self.init(
      use: judgement.use, verifiedChain: judgement.verifiedChain, presentedChain: judgement.presentedChain,
      pinning: judgement.pinning, rejection: judgement.rejection, protocolVersion: Int(facts.tlsVersion ?? 0),
      applicationProtocol: facts.applicationProtocol)
  }
}
