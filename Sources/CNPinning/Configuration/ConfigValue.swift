import Foundation

/// A configuration document as a tree of typed values, whatever format it was written in.
package indirect enum ConfigValue {
  case dictionary([(key: String, value: ConfigValue)])
  case array([ConfigValue])
  case string(String)
  case bool(Bool)
  case integer(Int64)
  case real(Double)
  case date(Date)
  case data(Data)
  case null

  /// The deepest nesting any reader accepts (JSON, XML and binary property lists alike): far
  /// beyond what a configuration needs, and short of what recursion could overflow.
  static let maximumNesting = 64

  /// How error messages name this value's type.
  var typeName: String {
    switch self {
    case .dictionary: return "a dictionary"
    case .array: return "an array"
    case .string: return "a string"
    case .bool: return "a boolean"
    case .integer, .real: return "a number"
    case .date: return "a date"
    case .data: return "data"
    case .null: return "null"
    }
  }

  /// The value as Foundation's property-list objects (`[String: Any]`, `[Any]`, `String`,
  /// `Bool`, `Int64`, `Double`, `Date`, `Data`, `NSNull`).
  package var foundationObject: Any {
    switch self {
    case .dictionary(let entries):
      return Dictionary(entries.map { ($0.key, $0.value.foundationObject) }, uniquingKeysWith: { first, _ in first })
    case .array(let values): return values.map(\.foundationObject)
    case .string(let value): return value
    case .bool(let value): return value
    case .integer(let value): return value
    case .real(let value): return value
    case .date(let value): return value
    case .data(let value): return value
    case .null: return NSNull()
    }
  }

  /// The value for `key` when this is a dictionary.
  subscript(key: String) -> ConfigValue? {
    guard case .dictionary(let entries) = self else { return nil }
    return entries.first(where: { $0.key == key })?.value
  }
}

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
  /// and every character ``VisibleText`` escapes).
  static func quoted(_ key: String) -> String { VisibleText.quoted(key, as: .json) }
}
