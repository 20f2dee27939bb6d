import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request that follows a redirect response, with the rules browsers and URLSession apply.
/// Credentials are the exchange's business (`CredentialHeaders`): they depend on the original
/// origin, not on one hop.
package enum RedirectPolicy {
  /// Whether `status` is a redirect this policy follows. (A switch, not a set: a static set costs
  /// a process its first request a runtime conformance lookup.)
  static func isRedirect(_ status: Int) -> Bool {
    switch status {
    case 301, 302, 303, 307, 308: return true
    default: return false
    }
  }

  /// The next request, or nil when a response with `status` and `location` (its Location
  /// field) is not a redirect to follow.
  static func nextRequest(status: Int, location: String?, for request: URLRequest) throws(CNPinnedSessionError)
    -> URLRequest?
  {
    guard isRedirect(status), let location, !location.isEmpty else { return nil }
    guard let base = request.url, let target = URL(string: location, relativeTo: base)?.absoluteURL else {
      throw .invalidURL(location)
    }
    // Checked here as every hop is (an http or https URL with a host that parses).
    _ = try RequestTarget(target)

    var next = request
    next.url = target
    let method = request.httpMethod ?? "GET"
    let becomesGet =
      (status == 303 && method != "HEAD") || ([301, 302].contains(status) && method == "POST")
    if becomesGet {
      next.httpMethod = "GET"
      next.httpBody = nil
      next.setValue(nil, forHTTPHeaderField: "Content-Type")
      next.setValue(nil, forHTTPHeaderField: "Content-Length")
    }
    return next
  }

  /// Scheme, canonical host and port (`RequestTarget.origin`): where credentials may go. A URL
  /// the session would refuse is an origin of its own.
  package static func origin(of url: URL) -> String {
    (try? RequestTarget(url))?.origin ?? "not a target: \(url.absoluteString)"
  }
}
