/// One HTTP header field, as sent or received: fields keep their order and their repeats in a
/// `CNHTTPRequest` and a `CNHTTPResponse`, where a dictionary would lose both.
public struct CNHTTPField: Sendable, Hashable {
  /// The field's name, as written (HTTP/2 sends names in lower case).
  public var name: String
  /// The field's value, without surrounding white space.
  public var value: String

  /// A field named `name` with `value`.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}
