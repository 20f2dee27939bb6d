import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cookies for one hop of a request, from and into a cookie storage, as URLSession handles them.
enum Cookies {
  /// The `Cookie` header value for `request` from `storage`: nil when there is no storage, the
  /// request opts out or sets its own `Cookie`, or nothing is stored for its URL. `Secure`
  /// cookies only go over https (FoundationNetworking's storage would offer them to http URLs).
  static func header(for request: URLRequest, from storage: HTTPCookieStorage?) -> String? {
    guard let storage, request.httpShouldHandleCookies, request.value(forHTTPHeaderField: "Cookie") == nil,
      let url = request.url
    else { return nil }
    let isHTTPS = url.scheme?.lowercased() == "https"
    let cookies = (storage.cookies(for: url) ?? []).filter { isHTTPS || !$0.isSecure }
    guard !cookies.isEmpty else { return nil }
    return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
  }

  /// Keeps the cookies `response` sets, for the URL `request` was sent to.
  static func store(from response: HTTPURLResponse, of request: URLRequest, in storage: HTTPCookieStorage?) {
    guard let storage, request.httpShouldHandleCookies, let url = request.url,
      response.value(forHTTPHeaderField: "Set-Cookie") != nil
    else { return }
    var fields: [String: String] = [:]
    for case (let name as String, let value as String) in response.allHeaderFields { fields[name] = value }
    let cookies = HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
    if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
  }
}
