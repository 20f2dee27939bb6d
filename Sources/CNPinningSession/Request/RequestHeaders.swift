import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one rule by which headers from a configuration join a request, on both platforms and in
/// the URLSession protocol: the request's own fields win over the added ones (names compared
/// without regard to ASCII case), and `withheld` credential names are sent by neither. Fields
/// meant for a proxy (`proxyOnly`) are the proxy's: the transport sends them to the proxy (in
/// the CONNECT of a tunnel) and never to an origin.
package enum RequestHeaders {
  /// Lower-case names of the fields that only a proxy may receive.
  static let proxyOnly: Set<String> = ["proxy-authorization"]

  /// A field to send, with its name as written and in ASCII lower case.
  package struct Field {
    let key: String
    package let name: String
    package let value: String
  }

  /// The fields of `request` over `additional`, without the `withheld` names, by lower-case name.
  static func merged(_ request: URLRequest, additional: [String: String], withheld: CredentialHeaders?) -> [String: Field] {
    let own = request.allHTTPHeaderFields ?? [:]
    guard !own.isEmpty || !additional.isEmpty else { return [:] }
    var fields: [String: Field] = [:]
    for (name, value) in additional.sorted(by: { $0.key < $1.key }) {
      let key = lowercasedASCII(name)
      fields[key] = Field(key: key, name: name, value: value)
    }
    for (name, value) in own {
      let key = lowercasedASCII(name)
      fields[key] = Field(key: key, name: name, value: value)
    }
    if let withheld { fields = fields.filter { !withheld.contains($0.key) } }
    return fields
  }

  /// `merged`'s fields split into those for the origin and those for a proxy only.
  package static func split(_ request: URLRequest, additional: [String: String], withheld: CredentialHeaders?) -> (
    origin: [String: Field], proxy: [String: Field]
  ) {
    var origin = merged(request, additional: additional, withheld: withheld)
    var proxy: [String: Field] = [:]
    for key in proxyOnly { proxy[key] = origin.removeValue(forKey: key) }
    return (origin, proxy)
  }

  /// `request` with the fields `merged` gives it; with `forOrigin`, without the proxy's.
  package static func adding(
    _ additional: [String: String], to request: URLRequest, withheld: CredentialHeaders? = nil, forOrigin: Bool = false
  ) -> URLRequest {
    guard !additional.isEmpty || withheld != nil || forOrigin else { return request }
    var result = request
    result.allHTTPHeaderFields = [:]
    let fields = merged(request, additional: additional, withheld: withheld)
    for field in fields.values where !(forOrigin && proxyOnly.contains(field.key)) {
      result.setValue(field.value, forHTTPHeaderField: field.name)
    }
    return result
  }

  package static func lowercasedASCII(_ name: String) -> String {
    guard name.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return name }
    return String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
  }
}
