import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server-trust challenge the manager refused: what the seed's delegate pattern cannot carry
/// to the app by itself, since URLSession ends a task whose challenge was cancelled with
/// `URLError.cancelled`, the same error as a cancel by the user or the app. Ask
/// ``CNPinningManager/refusal(explaining:at:)`` with the task's error to tell the two apart.
/// A value that explains an error, not an error itself: the task's error stays `URLError`.
public struct CNChallengeRefusal: Sendable, CustomStringConvertible {
  /// The host of the refused connection, lower case.
  public let host: String
  /// Its port.
  public let port: Int
  /// When it was refused.
  public let time: Date
  /// Why: the pin failure (nil for a trust failure, or a challenge without server trust).
  public let pinFailure: CNPinningFailure?
  /// Why, in words.
  public let reason: String

  /// The refusal in words.
  public var description: String { "the connection to \(HostName.authority(host, port: port)) was refused: \(reason)" }
}

/// The manager's recent refusals, newest last: at most `capacity`, each for `lifetime` seconds.
package struct RecentRefusals: Sendable {
  package static let capacity = 64
  /// How long a refusal explains a cancelled task: longer than a request waits for its
  /// connection, short enough that a later cancel by the user is not taken for one.
  package static let lifetime: TimeInterval = 300
  private let refusals = Locked<[CNChallengeRefusal]>([])

  package init() {}

  /// A challenge's host as refusals are kept and looked up: `HostName.parseChallengeHost`'s
  /// normal form (a zone-scoped IPv6 literal as its address), else as written, lower case.
  package static func key(_ host: String) -> String {
    (try? HostName.parseChallengeHost(host).get())?.normalized ?? host.lowercased()
  }

  package func record(_ refusal: CNChallengeRefusal) {
    refusals.withLock { list in
      list.append(refusal)
      if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
    }
  }

  /// The newest refusal of `host` and `port` at most `lifetime` old at `date`.
  package func latest(host: String, port: Int, at date: Date) -> CNChallengeRefusal? {
    let host = Self.key(host)
    return refusals.withLock { list in
      list.last { $0.host == host && $0.port == port && date.timeIntervalSince($0.time) <= Self.lifetime && $0.time <= date }
    }
  }
}

extension CNPinningManager {
  /// Remembers that a server-trust challenge for `host` and `port` was refused, for
  /// `refusal(explaining:)`: by the seed's `validate` and by the shared delegates of
  /// `URLSession.cnPinned` and `CNPinnedSession` alike.
  package func recordRefusal(host: String, port: Int, pinFailure: CNPinningFailure?, reason: String) {
    recentRefusals.record(
      CNChallengeRefusal(host: RecentRefusals.key(host), port: port, time: Date(), pinFailure: pinFailure, reason: reason))
  }

  /// The refusal that explains `error`, when it is the `URLError.cancelled` URLSession ends a task
  /// with after `validate(challenge:)` (or `validateServerTrust`) refused its connection: one of
  /// the failing URL's host and port in the last five minutes. Nil for any other error, and for a
  /// cancel with no such refusal (the user's, or the app's). The article "Apple platforms" shows
  /// it in the seed's delegate pattern (`Snippets/RefusalOrCancel.swift`).
  public func refusal(explaining error: any Error, at date: Date = Date()) -> CNChallengeRefusal? {
    guard let urlError = error as? URLError, urlError.code == .cancelled, let url = urlError.failingURL,
      let host = url.host
    else { return nil }
    let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
    return recentRefusals.latest(host: host, port: port, at: date)
  }
}
