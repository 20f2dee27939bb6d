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

  /// A key as it appears in a path: in double quotes, escaped as in JSON (quotes, backslashes
  /// and every character `VisibleText` escapes).
  static func quoted(_ key: String) -> String { VisibleText.quoted(key, as: .json) }
}
