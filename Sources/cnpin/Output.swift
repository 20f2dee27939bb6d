import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writing to standard output and standard error, and stable JSON. Nothing a server or a
/// certificate sent reaches the terminal as control characters: every line printed has them
/// escaped (`VisibleText`), values from outside are escaped where they are put in a line
/// (`Output.value`, which also escapes line feeds), JSON escapes them its own way, and a body
/// goes out raw only when standard output is not a terminal.
enum Output {
  static func print(_ text: String) {
    FileHandle.standardOutput.write(Data((visible(text) + "\n").utf8))
  }

  /// A response body or a document: raw into a pipe or file, escaped on a terminal.
  static func write(_ data: Data) {
    guard isatty(STDOUT_FILENO) == 1 else {
      FileHandle.standardOutput.write(data)
      return
    }
    FileHandle.standardOutput.write(Data(visible(String(decoding: data, as: UTF8.self)).utf8))
  }

  static func error(_ text: String) {
    FileHandle.standardError.write(Data((visible(text) + "\n").utf8))
  }

  /// A value from outside (a name in a certificate, a header), escaped to stay within its line.
  static func value(_ text: String) -> String { VisibleText.escaped(text) }

  /// Our own text, with whatever values it carries: line feeds kept, every other control
  /// character escaped.
  private static func visible(_ text: String) -> String {
    VisibleText.escaped(text, keepingNewlines: true, escapingBackslashes: false)
  }

  /// Pretty, key-sorted JSON, so that output diffs cleanly. JSON escapes C0 controls itself; the
  /// other controls `VisibleText` knows (DEL, C1, bidirectional) are written as `\u` escapes too.
  static func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(value) else { return "{}" }
    let text = String(decoding: data, as: UTF8.self)
    // Anything left to escape can only be inside a string: JSONEncoder escapes C0 controls itself.
    return VisibleText.escaped(text, as: .json, keepingNewlines: true, escapingBackslashes: false)
  }
}
