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
    var open: (label: String, base64: String, line: Int)?
    for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
      .enumerated()
    {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if let label = boundary(line, "BEGIN") {
        if let open { throw .invalidPEM("\"BEGIN \(open.label)\" on line \(open.line) has no END line") }
        open = (label, "", number + 1)
      } else if let label = boundary(line, "END") {
        guard let block = open else { throw .invalidPEM("\"END \(label)\" on line \(number + 1) has no BEGIN line") }
        guard label == block.label else {
          throw .invalidPEM("\"BEGIN \(block.label)\" on line \(block.line) ends with \"END \(label)\"")
        }
        guard !block.base64.isEmpty, let der = Data(base64Encoded: block.base64) else {
          throw .invalidPEM("the \(block.label) block on line \(block.line) is not valid base64")
        }
        result.append((label, [UInt8](der)))
        open = nil
      } else if open != nil {
        guard !line.contains(":") else {
          throw .invalidPEM("the block on line \(open!.line) has headers, which are not supported")
        }
        open!.base64 += line
      }
    }
    if let open { throw .invalidPEM("\"BEGIN \(open.label)\" on line \(open.line) has no END line") }
    return result
  }

  private static func boundary(_ line: String, _ kind: String) -> String? {
    let prefix = "-----\(kind) "
    guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count > prefix.count + 5 else { return nil }
    return String(line.dropFirst(prefix.count).dropLast(5))
  }

  static func encode(_ der: [UInt8], label: String) -> String {
    let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
  }
}
