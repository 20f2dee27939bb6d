import Foundation

/// The request that follows a redirect response, with the rules browsers and URLSession apply.
/// Credentials are the exchange's business (``CredentialHeaders``): they depend on the original
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

  /// The next request and its target (parsed here, once), or nil when a response with `status`
  /// and `location` (its Location field) is not a redirect to follow.
  static func nextRequest(status: Int, location: String?, for request: SessionRequest) throws(CNPinnedSessionError)
    -> (SessionRequest, RequestTarget)?
  {
    guard isRedirect(status), let location, !location.isEmpty else { return nil }
    guard let url = URL(string: location, relativeTo: request.url)?.absoluteURL else {
      throw .invalidURL(location)
    }
    // Checked here as every hop is (an http or https URL with a host that parses).
    let target = try RequestTarget(url)

    var next = request
    next.url = url
    let method = request.method
    let becomesGet =
      (status == 303 && method != "HEAD") || ([301, 302].contains(status) && method == "POST")
    if becomesGet {
      next = next.removingFields(["content-type", "content-length"])
      next.method = "GET"
      next.body = .none
    }
    return (next, target)
  }

  /// Scheme, canonical host and port (``RequestTarget/origin``): where credentials may go. A URL
  /// the session would refuse is an origin of its own.
  package static func origin(of url: URL) -> String {
    (try? RequestTarget(url))?.origin ?? "not a target: \(url.absoluteString)"
  }
}
