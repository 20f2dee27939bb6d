/// `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT`; the port defaults to 443.
struct HostPort: CustomStringConvertible {
  let host: String
  let port: Int

  init(_ text: String) throws(CLIError) {
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { throw .usage("\"\(text)\" has no closing \"]\"") }
      host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      if rest.isEmpty {
        port = 443
      } else {
        guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { throw .usage("\"\(text)\" is not [ADDRESS]:PORT") }
        port = number
      }
    } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
      host = String(text[..<colon])
      guard let number = Int(text[text.index(after: colon)...]) else { throw .usage("\"\(text)\" is not HOST:PORT") }
      port = number
    } else {
      host = text
      port = 443
    }
    guard !host.isEmpty else { throw .usage("\"\(text)\" has no host") }
    guard (1...65535).contains(port) else { throw .usage("port \(port) is out of range (1–65535)") }
  }

  var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
