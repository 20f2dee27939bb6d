import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one rule by which a request's fields and a configuration's join, on both platforms and in
/// the URLSession protocol: the request's own fields go first, in the order written and with
/// their repeats; then the configuration's (`httpAdditionalHeaders`, by name) that the request
/// does not set (names compared without regard to ASCII case); `withheld` credential names are
/// sent by neither. Fields meant for a proxy (``proxyOnly``) are the proxy's: the transport sends
/// them to the proxy (in the CONNECT of a tunnel) and never to an origin.
package enum RequestHeaders {
  /// Lower-case names of the fields that only a proxy may receive.
  static let proxyOnly: Set<String> = ["proxy-authorization"]

  /// The request's fields, then `additional`'s it does not set, without the `withheld` names.
  static func merged(_ fields: [CNHTTPField], additional: [String: String], withheld: CredentialHeaders?)
    -> [CNHTTPField]
  {
    guard !additional.isEmpty || withheld != nil else { return fields }
    var merged = fields
    if !additional.isEmpty {
      let own = Set(fields.map { FieldName.key($0.name) })
      for (name, value) in additional.sorted(by: { $0.key < $1.key }) where !own.contains(FieldName.key(name)) {
        merged.append(CNHTTPField(name: name, value: value))
      }
    }
    if let withheld { merged.removeAll { withheld.contains($0.name) } }
    return merged
  }

  /// `merged`'s fields split into those for the origin and those for a proxy only, each in order.
  package static func split(_ fields: [CNHTTPField], additional: [String: String], withheld: CredentialHeaders?) -> (
    origin: [CNHTTPField], proxy: [CNHTTPField]
  ) {
    let all = merged(fields, additional: additional, withheld: withheld)
    guard all.contains(where: { proxyOnly.contains(FieldName.key($0.name)) }) else { return (all, []) }
    return (
      all.filter { !proxyOnly.contains(FieldName.key($0.name)) }, all.filter { proxyOnly.contains(FieldName.key($0.name)) }
    )
  }
}

/// The fields of one hop, worked out once by the engine (``SessionEngine``) so that each
/// transport only writes them in its wire syntax: libcurl's header lines, a `URLRequest`.
package struct HopFields: Sendable {
  /// For the origin: ``RequestHeaders/split(_:additional:withheld:)``'s, then the hop's stored
  /// cookies unless those set a `Cookie` (the request's own, or the configuration's).
  package let origin: [CNHTTPField]
  /// For a proxy alone (`Proxy-Authorization`): a transport sends them only to the proxy it goes
  /// through, or not at all.
  package let proxy: [CNHTTPField]

  /// A handshake without a request sends no fields.
  static let none = HopFields(origin: [], proxy: [])

  private init(origin: [CNHTTPField], proxy: [CNHTTPField]) {
    self.origin = origin
    self.proxy = proxy
  }

  /// `request`'s fields for `target`, joined with the configuration's `additional` ones, without
  /// `withheld`, with the cookies `storage` keeps for the hop.
  package init(
    _ request: borrowing SessionRequest, at target: RequestTarget, additional: [String: String],
    withheld: CredentialHeaders?, cookies storage: HTTPCookieStorage?
  ) {
    var (origin, proxy) = RequestHeaders.split(request.fields, additional: additional, withheld: withheld)
    if let cookie = Cookies.header(for: request, sending: origin, at: target, from: storage) {
      origin.append(CNHTTPField(name: "Cookie", value: cookie))
    }
    self.init(origin: origin, proxy: proxy)
  }
}
