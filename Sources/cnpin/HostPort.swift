import CNPinning
import Foundation

/// `HOST`, `HOST:PORT`, `[IPv6]`, `[IPv6]:PORT`, or an `https://` URL (its host and port; the
/// path is ignored); the port defaults to 443.
struct HostPort: CustomStringConvertible {
  let host: String
  let port: Int

  init(_ text: String) throws(CLIError) {
    (host, port) = try Self.parse(text)
    guard !host.isEmpty else { throw .usage("\"\(text)\" has no host") }
    if case .failure(let invalid) = HostName.parse(host) { throw .usage("\"\(host)\" \(invalid.reason)") }
    guard (1...65535).contains(port) else { throw .usage("port \(port) is out of range (1–65535)") }
  }

  var description: String { Self.authority(host, port: port) }

  private static func parse(_ text: String) throws(CLIError) -> (String, Int) {
    if let scheme = text.range(of: "://") { return try parse(url: text, scheme: text[..<scheme.lowerBound]) }
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { throw .usage("\"\(text)\" has no closing \"]\"") }
      let host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      if rest.isEmpty { return (host, 443) }
      guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { throw .usage("\"\(text)\" is not [ADDRESS]:PORT") }
      return (host, number)
    }
    if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
      guard let number = Int(text[text.index(after: colon)...]) else { throw .usage("\"\(text)\" is not HOST:PORT") }
      return (String(text[..<colon]), number)
    }
    return (text, 443)
  }

  private static func parse(url text: String, scheme: Substring) throws(CLIError) -> (String, Int) {
    guard scheme.lowercased() == "https" else {
      throw .usage("\"\(text)\" is not an https URL: this command connects with TLS (give https://HOST[:PORT]/ or HOST[:PORT])")
    }
    guard let components = URLComponents(string: text), let name = components.host, !name.isEmpty else {
      throw .usage("\"\(text)\" is not a URL with a host")
    }
    guard components.user == nil, components.password == nil else {
      throw .usage("\"\(text)\" carries credentials; give the host without them")
    }
    return (HostName.unbracketed(name), components.port ?? 443)
  }

  private static func authority(_ host: String, port: Int) -> String { HostName.authority(host, port: port) }
}
