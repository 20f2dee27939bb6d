#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import FoundationNetworking

extension URLSessionConfiguration {
  /// An ephemeral configuration whose `http` and `https` requests all go through a
  /// ``CNPinnedSession`` with `manager` and `configuration` (trust, unpinned-host rule, transport
  /// security, proxies, reports): `URLSession(configuration: try .cnPinned(manager: manager))`
  /// pins code written against `URLSession` on Linux, where FoundationNetworking never hands a
  /// server-trust challenge to a delegate.
  ///
  /// Each pinned session (a network thread, about 1 MB) is kept for the life of the process: a
  /// protocol class in any copy of a configuration may name it at any time. Calls with the same
  /// manager (the same object) and an equal configuration share one session, so making a pinned
  /// configuration per request costs nothing more; each distinct pair costs one session.
  ///
  /// Every scheme goes through the pinned protocol: `http` and `https` are pinned, and any other
  /// (ftp, ws and wss, data, file, …) fails with `URLError(.unsupportedURL)` naming it, rather
  /// than going to FoundationNetworking's own protocols unpinned.
  ///
  /// Redirects are followed by the pinned session, each hop judged by its own host's pins. A
  /// refusal by trust or pins fails the task with `URLError(.serverCertificateUntrusted)` (an
  /// expired or not yet valid certificate with `.serverCertificateHasBadDate` or
  /// `.serverCertificateNotYetValid`) whose underlying error (`NSUnderlyingErrorKey`) is the
  /// ``CNPinnedSessionError`` with its full reason. Cancelling a task cancels its transfer.
  /// Responses are never cached. A task with a data delegate gets the body as it arrives
  /// (completion-handler and `data(for:)` tasks get it whole, as FoundationNetworking keeps only
  /// the last piece for them); upload bodies from a file or stream are read as they are sent.
  /// The URLSession configuration's `httpAdditionalHeaders` are sent (under the request's own),
  /// and its `httpCookieStorage` gives and keeps each hop's cookies (`httpShouldSetCookies`);
  /// credential headers stay with the original origin. The URLSession delegate is not asked about
  /// redirects (FoundationNetworking cannot take them from a protocol), and download tasks are
  /// refused (it finishes them only for its own protocols).
  public static func cnPinned(
    manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration = .default
  ) throws -> URLSessionConfiguration {
    let pinned = URLSessionConfiguration.ephemeral
    pinned.protocolClasses = [try PinnedSessions.protocolClass(manager: manager, configuration: configuration)]
    // Responses are never cached: a cached response would not be freshly pinned.
    pinned.urlCache = nil
    pinned.requestCachePolicy = .reloadIgnoringLocalCacheData
    return pinned
  }
}
#endif
