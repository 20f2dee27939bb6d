/// A host name in the form used for lookups: ASCII lower case, without a trailing dot, IPv6 in
/// canonical RFC 5952 text without brackets, and an IPv4-mapped IPv6 address as the IPv4 address
/// it is (the deprecated IPv4-compatible and IPv4-translated forms are refused).
package struct HostName: Hashable, Sendable {
  package let normalized: String
  package let isIPAddress: Bool

  /// Why a string is not a usable host name.
  package struct Invalid: Error, Sendable {
    package let reason: String
  }

  static let maximumLength = 253

  /// The host as a URL's authority writes it: an IPv6 address in brackets (`[::1]`), anything
  /// else as it is. The one place brackets are added.
  package var authority: String { Self.authority(normalized) }

  /// `host` as an authority writes it: an IPv6 literal in brackets (once), anything else as it is.
  package static func authority(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }

  /// `host:port`, with an IPv6 literal in brackets.
  package static func authority(_ host: String, port: Int) -> String { "\(authority(host)):\(port)" }

  /// `text` without the brackets an IPv6 literal has in an authority (`[::1]` → `::1`); any other
  /// text as it is. The one place brackets are taken off (`parse` takes either form).
  package static func unbracketed(_ text: String) -> String {
    text.hasPrefix("[") && text.hasSuffix("]") && text.count >= 2 ? String(text.dropFirst().dropLast()) : text
  }

  /// Normalises `text`, or says why it cannot name a host.
  package static func parse(_ text: String) -> Result<HostName, Invalid> {
    var copy = text
    return copy.withUTF8 { parse(bytes: $0, original: text) }
  }

  private static func parse(bytes: UnsafeBufferPointer<UInt8>, original: String) -> Result<HostName, Invalid> {
    guard !bytes.isEmpty else { return .failure(Invalid(reason: "empty host name")) }
    // Nothing that names a host is longer (a trailing dot aside), IPv6 literals included: checked
    // first, so that no later step ever sees more than this many bytes.
    guard bytes.count <= maximumLength + 1 else {
      return .failure(Invalid(reason: "longer than \(maximumLength) characters"))
    }
    if let problem = structuralProblem(bytes) { return .failure(Invalid(reason: problem)) }
    if bytes.first == UInt8(ascii: "[") || bytes.contains(UInt8(ascii: ":")) {
      return parseIPv6(bytes)
    }
    var end = bytes.count
    if bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
    guard end > 0 else { return .failure(Invalid(reason: "empty host name")) }
    guard end <= maximumLength else {
      return .failure(Invalid(reason: "longer than \(maximumLength) characters"))
    }
    var needsCopy = end != bytes.count
    var labelStart = 0
    var labelIsNumeric = true
    var lastLabelIsNumeric = false
    for index in 0...end {
      if index == end || bytes[index] == UInt8(ascii: ".") {
        let length = index - labelStart
        guard length > 0 else { return .failure(Invalid(reason: "has an empty label (\"..\" or a leading dot)")) }
        guard length <= 63 else { return .failure(Invalid(reason: "has a label longer than 63 characters")) }
        guard bytes[labelStart] != UInt8(ascii: "-"), bytes[index - 1] != UInt8(ascii: "-") else {
          return .failure(Invalid(reason: "has a label that starts or ends with \"-\""))
        }
        labelStart = index + 1
        lastLabelIsNumeric = labelIsNumeric
        labelIsNumeric = true
        continue
      }
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "_"):
        labelIsNumeric = false
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        break
      case UInt8(ascii: "A")...UInt8(ascii: "Z"):
        labelIsNumeric = false
        needsCopy = true
      default:
        return .failure(Invalid(reason: characterProblem(byte)))
      }
    }
    let host = bytes[..<end]
    // A host that ends in a number is an address to libcurl and browsers (WHATWG), however it
    // is spelled: only the canonical dotted-decimal form is taken, as the address it is; any
    // other spelling of an address is refused with the form to write, so that pins, exceptions
    // and cookies never see an address under a name.
    if lastLabelIsNumeric || IPAddress.endsInANumber(host) {
      if let address = IPAddress.canonicalIPv4(host) {
        return .success(HostName(normalized: address, isIPAddress: true))
      }
      if let octets = IPAddress.readAnyIPv4(host), let address = IPAddress.text(ofAddressBytes: octets) {
        return .failure(
          Invalid(reason: "is the IPv4 address \(address) written in another form (shortened, octal or hex); write \(address)"))
      }
      return .failure(Invalid(reason: "ends in a numeric label but is not an IPv4 address in dotted-decimal form"))
    }
    if !needsCopy { return .success(HostName(normalized: original, isIPAddress: false)) }
    let lowered = String(unsafeUninitializedCapacity: end) { buffer in
      for index in 0..<end {
        let byte = host[index]
        buffer[index] = (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
      }
      return end
    }
    return .success(HostName(normalized: lowered, isIPAddress: false))
  }

  /// Mistakes that show the text is a URL or a pattern rather than a host name.
  private static func structuralProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    // Byte by byte, allocating nothing: every request's host comes through here.
    let hasScheme =
      bytes.count >= 3
      && (0...(bytes.count - 3)).contains {
        bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: "/") && bytes[$0 + 2] == UInt8(ascii: "/")
      }
    if hasScheme { return "contains a URL scheme; write the host name only" }
    if bytes.contains(UInt8(ascii: "/")) { return "contains a path; write the host name only" }
    if bytes.contains(UInt8(ascii: "*")) { return "wildcards are not supported; use includesSubdomains" }
    if bytes.contains(UInt8(ascii: "@")) { return "contains user information; write the host name only" }
    if bytes.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
      return "contains whitespace"
    }
    return nil
  }

  private static func characterProblem(_ byte: UInt8) -> String {
    if byte >= 0x80 {
      return "contains non-ASCII characters; write an internationalised name in its xn-- (punycode) form"
    }
    if byte < 0x20 || byte == 0x7F { return "contains a control character" }
    return "contains the character \"\(Character(Unicode.Scalar(byte)))\""
  }

  private static func parseIPv6(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HostName, Invalid> {
    var body = bytes[...]
    if let close = bytes.firstIndex(of: UInt8(ascii: "]")), close != bytes.count - 1 {
      return .failure(Invalid(reason: "contains a port; write the host name only"))
    }
    if body.first == UInt8(ascii: "[") {
      guard body.last == UInt8(ascii: "]"), body.count > 2 else {
        return .failure(Invalid(reason: "has an unbalanced \"[\"; an IPv6 address is written [::1] or ::1"))
      }
      body = body.dropFirst().dropLast()
    } else if bytes.contains(UInt8(ascii: "]")) {
      return .failure(Invalid(reason: "contains a port; write the host name only"))
    }
    if body.contains(UInt8(ascii: "%")) {
      return .failure(Invalid(reason: "IPv6 zone identifiers (%…) are not supported"))
    }
    switch IPAddress.readIPv6(body) {
    case .ipv6(let canonical):
      return .success(HostName(normalized: canonical, isIPAddress: true))
    case .ipv4(let address):
      // One address, one name: pins, exceptions and the unpinned-host rule see the IPv4 form.
      return .success(HostName(normalized: address, isIPAddress: true))
    case .embeddedIPv4(let form, let address):
      return .failure(Invalid(reason: "is an \(form) IPv6 address, not in use; write the IPv4 address \(address)"))
    case nil:
      let reason =
        bytes.first == UInt8(ascii: "[")
        ? "is not a valid IPv6 address" : "contains a port or is not a valid IPv6 address"
      return .failure(Invalid(reason: reason))
    }
  }
}
