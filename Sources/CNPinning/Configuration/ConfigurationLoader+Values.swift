/// Typed access to configuration values: each returns the value when it has the expected type,
/// and otherwise records `wrongType` at `path`, saying what was expected, and returns nil.
extension ConfigurationLoader {
  /// A dictionary's members, in the order written.
  mutating func members(of value: ConfigValue, at path: ConfigPath, expected: String = "a dictionary")
    -> [(key: String, value: ConfigValue)]?
  {
    if case .dictionary(let members) = value { return members }
    fail(path, .wrongType(expected: expected, found: value.typeName))
    return nil
  }

  /// An array's elements.
  mutating func elements(of value: ConfigValue, at path: ConfigPath, expected: String) -> [ConfigValue]? {
    if case .array(let elements) = value { return elements }
    fail(path, .wrongType(expected: expected, found: value.typeName))
    return nil
  }

  /// A boolean.
  mutating func loadBool(_ value: ConfigValue, path: ConfigPath) -> Bool? {
    if case .bool(let flag) = value { return flag }
    fail(path, .wrongType(expected: "a boolean", found: value.typeName))
    return nil
  }
}
