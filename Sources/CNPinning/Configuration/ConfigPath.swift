/// Where a value sits in a configuration document, as problems and warnings name it:
/// `PinnedDomains["api.example.com"].chainSet[0][1].type`. Keys that are hosts (or any key that
/// needs it) are quoted, so that a path always reads back unambiguously.
struct ConfigPath: CustomStringConvertible, ExpressibleByStringLiteral, Sendable {
  let description: String

  init(_ description: String) { self.description = description }
  init(stringLiteral value: String) { description = value }

  /// The member `name` of this dictionary (`path.name`; at the top level, `name`).
  func member(_ name: String) -> ConfigPath {
    ConfigPath(description.isEmpty ? name : "\(description).\(name)")
  }

  /// The element at `index` of this array (`path[0]`).
  func element(_ index: Int) -> ConfigPath { ConfigPath("\(description)[\(index)]") }

  /// The entry for `key` of this dictionary, quoted (`path["api.example.com"]`).
  func entry(_ key: String) -> ConfigPath { ConfigPath("\(description)[\(Self.quoted(key))]") }

  /// A key as it appears in a path: in double quotes, with quotes, backslashes and control
  /// characters escaped.
  static func quoted(_ key: String) -> String {
    var result = "\""
    for scalar in key.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        result +=
          "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
