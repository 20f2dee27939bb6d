import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The request that follows a redirect response, with the rules browsers and URLSession apply.
enum RedirectPolicy {
  static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

  /// The next request, or nil when `response` is not a redirect to follow.
  static func nextRequest(after response: HTTPURLResponse, for request: URLRequest) throws(CNPinnedSessionError)
    -> URLRequest?
  {
    guard redirectStatuses.contains(response.statusCode),
      let location = response.value(forHTTPHeaderField: "Location"), !location.isEmpty
    else { return nil }
    guard let base = request.url, let target = URL(string: location, relativeTo: base)?.absoluteURL,
      let scheme = target.scheme?.lowercased(), scheme == "https" || scheme == "http", target.host != nil
    else { throw .invalidURL(location) }

    var next = request
    next.url = target
    let method = request.httpMethod ?? "GET"
    let becomesGet =
      (response.statusCode == 303 && method != "HEAD") || ([301, 302].contains(response.statusCode) && method == "POST")
    if becomesGet {
      next.httpMethod = "GET"
      next.httpBody = nil
      next.setValue(nil, forHTTPHeaderField: "Content-Type")
      next.setValue(nil, forHTTPHeaderField: "Content-Length")
    }
    if origin(of: base) != origin(of: target) {
      for credential in ["Authorization", "Proxy-Authorization", "Cookie"] {
        next.setValue(nil, forHTTPHeaderField: credential)
      }
    }
    return next
  }

  private static func origin(of url: URL) -> String {
    let scheme = url.scheme?.lowercased() ?? ""
    let port = url.port ?? (scheme == "https" ? 443 : 80)
    return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
  }
}
