/// Parsing and canonical text of IP address literals, in pure Swift.
package enum IPAddress {
  /// `a.b.c.d` with four decimal octets and no leading zeros, or nil.
  static func canonicalIPv4(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
    // Only the canonical form parses (decimal, no leading zeros), so it is its own text.
    guard parseIPv4(bytes) != nil else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The four octets, first in the high byte, or nil (made without an allocation: a request's
  /// host is checked three times).
  static func parseIPv4(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt32? {
    var address: UInt32 = 0
    var dots = 0
    var value = 0
    var digits = 0
    var leadingZero = false
    for byte in bytes {
      if byte == UInt8(ascii: ".") {
        guard digits > 0, dots < 3 else { return nil }
        address = address << 8 | UInt32(value)
        dots += 1
        (value, digits, leadingZero) = (0, 0, false)
        continue
      }
      guard byte >= 0x30, byte <= 0x39, !leadingZero else { return nil }
      if digits == 0 && byte == 0x30 { leadingZero = true }
      value = value * 10 + Int(byte - 0x30)
      digits += 1
      guard value <= 255 else { return nil }
    }
    guard digits > 0, dots == 3 else { return nil }
    return address << 8 | UInt32(value)
  }

  /// Whether a host name (without a trailing dot) ends in a number as the WHATWG URL standard
  /// reads one: its last label is all decimal digits, or `0x`/`0X` and hex digits (none
  /// included). Such a host is an IPv4 address to browsers and to libcurl's URL parser, whatever
  /// else it looks like, so it cannot be a name.
  static func endsInANumber(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
    let start = bytes.lastIndex(of: UInt8(ascii: ".")).map { bytes.index(after: $0) } ?? bytes.startIndex
    let label = bytes[start...]
    guard !label.isEmpty else { return false }
    if label.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
    guard label.count >= 2, label[label.startIndex] == UInt8(ascii: "0"),
      label[label.index(after: label.startIndex)] | 0x20 == UInt8(ascii: "x")
    else { return false }
    return label.dropFirst(2).allSatisfy { hexValue($0) != nil }
  }

  /// The IPv4 address a host spells in any of the forms inet_aton and the WHATWG URL standard
  /// accept: one to four dot-separated numbers, each decimal, octal (a leading 0) or hex
  /// (`0x`), the last filling the remaining bytes (`127.1`, `2130706433`, `0x7f000001`,
  /// `0177.0.0.1`, `127.0.0.0x1`); nil when the text is not such an address.
  static func readAnyIPv4(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8]? {
    let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard (1...4).contains(parts.count) else { return nil }
    var numbers: [UInt64] = []
    for part in parts {
      guard let number = ipv4Number(Array(part)[...]) else { return nil }
      numbers.append(number)
    }
    let last = numbers.removeLast()
    guard numbers.allSatisfy({ $0 <= 255 }), last < (UInt64(1) << (8 * (4 - numbers.count))) else { return nil }
    var address = numbers.map(UInt8.init)
    for shift in stride(from: 8 * (3 - numbers.count), through: 0, by: -8) {
      address.append(UInt8((last >> UInt64(shift)) & 0xFF))
    }
    return address
  }

  /// One part of an IPv4 address in any radix, or nil; at most eleven significant digits, so
  /// nothing overflows.
  private static func ipv4Number(_ part: ArraySlice<UInt8>) -> UInt64? {
    var digits = part[...]
    var radix: UInt64 = 10
    let second = digits.dropFirst().first
    if digits.count >= 2, digits.first == UInt8(ascii: "0"), let second, second | 0x20 == UInt8(ascii: "x") {
      radix = 16
      digits = digits.dropFirst(2)
      if digits.isEmpty { return 0 }
    } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
      radix = 8
      digits = digits.dropFirst()
    }
    guard !digits.isEmpty else { return nil }
    // Leading zeros add nothing; eleven digits more are past 2^32 in any radix here.
    let significant = digits.drop { $0 == UInt8(ascii: "0") }
    guard significant.count <= 11 else { return nil }
    var value: UInt64 = 0
    for byte in digits {
      guard let digit = hexValue(byte).map(UInt64.init), digit < radix else { return nil }
      value = value * radix + digit
    }
    return value
  }

  /// How an IPv6 literal reads: its canonical text, or the IPv4 address it spells.
  enum IPv6Reading {
    /// RFC 5952 text (lower-case hex, the longest run of two or more zero groups as "::").
    case ipv6(String)
    /// An IPv4-mapped address (`::ffff:a.b.c.d`, in any spelling): the IPv4 address itself,
    /// which a dual-stack socket reaches.
    case ipv4(String)
    /// A form that embeds an IPv4 address but is another address on the wire: IPv4-compatible
    /// (`::a.b.c.d`, deprecated by RFC 4291) or IPv4-translated (`::ffff:0:a.b.c.d`, RFC 2765).
    case embeddedIPv4(form: String, address: String)
  }

  /// What an IPv6 literal (without brackets) reads as, or nil when it is not one.
  static func readIPv6(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> IPv6Reading? {
    guard let groups = parseIPv6(bytes) else { return nil }
    let embedded = "\(groups[6] >> 8).\(groups[6] & 0xFF).\(groups[7] >> 8).\(groups[7] & 0xFF)"
    if groups[0..<5].allSatisfy({ $0 == 0 }) {
      switch groups[5] {
      case 0xFFFF:
        return .ipv4(embedded)
      case 0 where groups[6] != 0 || groups[7] > 1:
        return .embeddedIPv4(form: "IPv4-compatible", address: embedded)
      default:
        break
      }
    }
    if groups[0..<4].allSatisfy({ $0 == 0 }), groups[4] == 0xFFFF, groups[5] == 0 {
      return .embeddedIPv4(form: "IPv4-translated", address: embedded)
    }
    return .ipv6(canonicalText(groups))
  }

  /// The canonical text of an address given as its 4 or 16 bytes (an iPAddress SAN's): IPv4 as
  /// dotted decimal, IPv6 as RFC 5952 writes it; nil for other lengths.
  package static func text(ofAddressBytes bytes: [UInt8]) -> String? {
    switch bytes.count {
    case 4: return bytes.map(String.init).joined(separator: ".")
    case 16: return canonicalText(stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) })
    default: return nil
    }
  }

  /// RFC 5952 text: lower-case hex, the longest run of two or more zero groups as "::".
  private static func canonicalText(_ groups: [UInt16]) -> String {
    var bestStart = -1
    var bestLength = 1
    var index = 0
    while index < 8 {
      guard groups[index] == 0 else {
        index += 1
        continue
      }
      let start = index
      while index < 8 && groups[index] == 0 { index += 1 }
      if index - start > bestLength { (bestStart, bestLength) = (start, index - start) }
    }
    func hex(_ range: Range<Int>) -> String {
      range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
    }
    guard bestStart >= 0 else { return hex(0..<8) }
    return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
  }

  private static func parseIPv6(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt16]? {
    let text = Array(bytes)
    guard text.count >= 2 else { return nil }
    var head: [UInt16] = []
    var tail: [UInt16] = []
    var sawDoubleColon = false
    var index = 0
    if text.starts(with: [0x3A, 0x3A]) {
      sawDoubleColon = true
      index = 2
      if index == text.count { return [UInt16](repeating: 0, count: 8) }
    } else if text[0] == 0x3A {
      return nil
    }
    while index < text.count {
      // An embedded IPv4 address may end the text.
      let rest = text[index...]
      if let dot = rest.firstIndex(of: UInt8(ascii: ".")), !rest[..<dot].contains(0x3A) {
        let address: UInt32? = rest.withUnsafeBufferPointer { parseIPv4($0[...]) }
        guard let address else { return nil }
        let pair = [UInt16(truncatingIfNeeded: address >> 16), UInt16(truncatingIfNeeded: address)]
        if sawDoubleColon { tail += pair } else { head += pair }
        index = text.count
        break
      }
      var value: UInt16 = 0
      var digits = 0
      while index < text.count, let digit = hexValue(text[index]) {
        guard digits < 4 else { return nil }
        value = value << 4 | UInt16(digit)
        digits += 1
        index += 1
      }
      guard digits > 0 else { return nil }
      if sawDoubleColon { tail.append(value) } else { head.append(value) }
      guard index < text.count else { break }
      guard text[index] == 0x3A else { return nil }
      index += 1
      if index < text.count, text[index] == 0x3A {
        guard !sawDoubleColon else { return nil }
        sawDoubleColon = true
        index += 1
      } else if index == text.count {
        return nil
      }
    }
    let total = head.count + tail.count
    if sawDoubleColon {
      guard total <= 7 else { return nil }
      return head + [UInt16](repeating: 0, count: 8 - total) + tail
    }
    return total == 8 ? head : nil
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x61...0x66: return byte - 0x61 + 10
    case 0x41...0x46: return byte - 0x41 + 10
    default: return nil
    }
  }
}
