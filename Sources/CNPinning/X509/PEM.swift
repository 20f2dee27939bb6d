import Foundation

/// PEM (RFC 7468) armour: base64 between `-----BEGIN label-----` and `-----END label-----` lines.
enum PEM {
  /// The DER of every CERTIFICATE block, in order. Blocks with other labels (keys, for example)
  /// are passed over; text outside blocks is ignored.
  static func certificateBlocks(in text: String) throws(CNCertificateError) -> [[UInt8]] {
    try blocks(in: text).filter { $0.label == "CERTIFICATE" }.map(\.der)
  }

  static func blocks(in text: String) throws(CNCertificateError) -> [(label: String, der: [UInt8])] {
    var result: [(label: String, der: [UInt8])] = []
    var open: (label: String, base64: [UInt8], line: Int)?
    for (number, line) in lines(of: Array(text.utf8)).enumerated() {
      if let label = boundary(line, beginPrefix) {
        if let open { throw .invalidPEM("\"BEGIN \(open.label)\" on line \(open.line) has no END line") }
        open = (label, [], number + 1)
      } else if let label = boundary(line, endPrefix) {
        guard let block = open else { throw .invalidPEM("\"END \(label)\" on line \(number + 1) has no BEGIN line") }
        guard label == block.label else {
          throw .invalidPEM("\"BEGIN \(block.label)\" on line \(block.line) ends with \"END \(label)\"")
        }
        guard !block.base64.isEmpty, let der = Data(base64Encoded: Data(block.base64)) else {
          throw .invalidPEM("the \(block.label) block on line \(block.line) is not valid base64")
        }
        result.append((label, [UInt8](der)))
        open = nil
      } else if let block = open {
        guard !line.contains(UInt8(ascii: ":")) else {
          throw .invalidPEM("the block on line \(block.line) has headers, which are not supported")
        }
        open!.base64 += line
      }
    }
    if let open { throw .invalidPEM("\"BEGIN \(open.label)\" on line \(open.line) has no END line") }
    return result
  }

  /// The lines of `bytes` (ended by LF, CR or CRLF), without leading and trailing spaces and tabs.
  private static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index <= bytes.count {
      guard index == bytes.count || bytes[index] == 0x0A || bytes[index] == 0x0D else {
        index += 1
        continue
      }
      lines.append(trimmed(bytes[start..<index]))
      if index + 1 < bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A { index += 1 }
      index += 1
      start = index
    }
    return lines
  }

  private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
    guard let first = line.firstIndex(where: { !isBlank($0) }), let last = line.lastIndex(where: { !isBlank($0) }) else {
      return []
    }
    return line[first...last]
  }

  private static let beginPrefix = Array("-----BEGIN ".utf8)
  private static let endPrefix = Array("-----END ".utf8)
  private static let dashes = Array("-----".utf8)

  /// The label of a `-----BEGIN label-----` or `-----END label-----` line.
  private static func boundary(_ line: ArraySlice<UInt8>, _ prefix: [UInt8]) -> String? {
    guard line.count > prefix.count + dashes.count, line.starts(with: prefix), line.suffix(dashes.count).elementsEqual(dashes)
    else { return nil }
    return String(decoding: line.dropFirst(prefix.count).dropLast(dashes.count), as: UTF8.self)
  }

  static func encode(_ der: [UInt8], label: String) -> String {
    let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
  }
}
