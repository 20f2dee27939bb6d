import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where one request's cookies come from and its responses' go.
package enum CookieSource {
  /// The session configuration's `httpCookieStorage` (none when it has none).
  case configuration
  /// A storage of the caller's own, or none: what the URLSession protocol's task uses.
  case storage(HTTPCookieStorage?)

  /// The storage this source names under `configuration`.
  func storage(under configuration: CNPinnedSessionConfiguration) -> HTTPCookieStorage? {
    switch self {
    case .configuration: configuration.httpCookieStorage
    case .storage(let storage): storage
    }
  }
}
