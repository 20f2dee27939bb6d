import Foundation

/// Writing to standard output and standard error, and stable JSON.
enum Output {
  static func print(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }

  static func write(_ data: Data) {
    FileHandle.standardOutput.write(data)
  }

  static func error(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Pretty, key-sorted JSON, so that output diffs cleanly.
  static func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
