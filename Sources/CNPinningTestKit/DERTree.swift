// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
/// A minimal DER tree for editing test certificates: parse, replace a node, re-encode with
/// correct lengths. Only for material the test kit made itself.
indirect enum DERTree: Equatable {
  case primitive(tag: UInt8, content: [UInt8])
  case constructed(tag: UInt8, children: [DERTree])

  static func parse(_ bytes: [UInt8]) throws -> DERTree {
    var position = 0
    let tree = try parseNode(bytes, &position)
    guard position == bytes.count else { throw TestKitError(message: "trailing bytes after DER") }
    return tree
  }

  private static func parseNode(_ bytes: [UInt8], _ position: inout Int) throws -> DERTree {
    guard position + 2 <= bytes.count else { throw TestKitError(message: "truncated DER") }
    let tag = bytes[position]
    var length = Int(bytes[position + 1])
    position += 2
    if length >= 0x80 {
      let count = length & 0x7F
      guard count <= 4, position + count <= bytes.count else { throw TestKitError(message: "bad DER length") }
      length = bytes[position..<(position + count)].reduce(0) { $0 << 8 | Int($1) }
      position += count
    }
    guard position + length <= bytes.count else { throw TestKitError(message: "truncated DER") }
    let end = position + length
    // Constructed tags hold nested elements; BIT STRING and OCTET STRING are kept as bytes.
    guard tag & 0x20 != 0 else {
      defer { position = end }
      return .primitive(tag: tag, content: Array(bytes[position..<end]))
    }
    var children: [DERTree] = []
    while position < end { children.append(try parseNode(bytes, &position)) }
    guard position == end else { throw TestKitError(message: "DER child overruns its parent") }
    return .constructed(tag: tag, children: children)
  }

  var encoded: [UInt8] {
    switch self {
    case .primitive(let tag, let content):
      return [tag] + Self.length(content.count) + content
    case .constructed(let tag, let children):
      let content = children.flatMap(\.encoded)
      return [tag] + Self.length(content.count) + content
    }
  }

  static func length(_ count: Int) -> [UInt8] {
    guard count >= 0x80 else { return [UInt8(count)] }
    var bytes: [UInt8] = []
    var remaining = count
    while remaining > 0 {
      bytes.insert(UInt8(remaining & 0xFF), at: 0)
      remaining >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }

  /// Replaces every primitive node whose content equals `content` (any tag) with `replacement`.
  func replacing(content: [UInt8], with replacement: DERTree) -> DERTree {
    switch self {
    case .primitive(_, let existing):
      return existing == content ? replacement : self
    case .constructed(let tag, let children):
      return .constructed(tag: tag, children: children.map { $0.replacing(content: content, with: replacement) })
    }
  }

  var children: [DERTree] {
    if case .constructed(_, let children) = self { return children }
    return []
  }
}
#endif
