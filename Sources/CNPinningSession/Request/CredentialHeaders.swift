import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Headers that carry credentials: `Authorization`, `Proxy-Authorization`, `Cookie`, and the names
/// a configuration adds. They go only to the origin of a request's first hop.
package struct CredentialHeaders: Sendable {
  /// The names as ``FieldName`` compares them.
  let names: Set<String>

  package init(additional: [String]) {
    names = Set(["authorization", "proxy-authorization", "cookie"] + additional.map(FieldName.key))
  }

  package func contains(_ name: String) -> Bool { names.contains(FieldName.key(name)) }

  /// `request` without any credential header.
  package func removed(from request: SessionRequest) -> SessionRequest { request.removingFields(names) }

  /// `request` without any credential header: for the one edge that redirects `URLRequest`s
  /// (an app's URLSession on Apple platforms, `URLSession.cnPinned`).
  package func removed(from request: URLRequest) -> URLRequest {
    var stripped = request
    for name in (request.allHTTPHeaderFields ?? [:]).keys where contains(name) {
      stripped.setValue(nil, forHTTPHeaderField: name)
    }
    return stripped
  }
}
