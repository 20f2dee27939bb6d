import Foundation

/// A configuration document as a tree of typed values, whatever format it was written in.
indirect enum ConfigValue {
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

  /// The value for `key` when this is a dictionary.
  subscript(key: String) -> ConfigValue? {
    guard case .dictionary(let entries) = self else { return nil }
    return entries.first(where: { $0.key == key })?.value
  }
}
