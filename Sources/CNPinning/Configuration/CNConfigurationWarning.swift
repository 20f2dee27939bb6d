/// A non-fatal remark about a configuration, such as a link without a type.
public struct CNConfigurationWarning: Sendable, Hashable, CustomStringConvertible {
  /// The element the warning is about.
  public let path: String
  /// What was assumed or what to check.
  public let message: String

  public var description: String { "\(path): \(message)" }
}
