// The declarations of swift-http-types 1.0 (module HTTPTypes) that CNPinningOpenAPI uses, for a
// type-check without the package (scripts/openapi-check.sh). Written from the package's published
// API (github.com/apple/swift-http-types, Sources/HTTPTypes: HTTPRequest.swift, HTTPResponse.swift,
// HTTPField.swift, HTTPFieldName.swift, HTTPFields.swift; Apache-2.0); only the signatures, the
// bodies trap. Stricter where the real package may be looser is fine; looser is not.

public struct HTTPField: Sendable, Hashable {
  public struct Name: Sendable, Hashable {
    /// nil when `name` is not a valid field name (RFC 9110 token).
    public init?(_ name: String) { fatalError() }
    public var rawName: String { fatalError() }
    public var canonicalName: String { fatalError() }
  }
  public init(name: Name, value: String) { fatalError() }
  public var name: Name { fatalError() }
  public var value: String {
    get { fatalError() }
    set { fatalError() }
  }
}

public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, RangeReplaceableCollection, MutableCollection,
  ExpressibleByDictionaryLiteral
{
  public typealias Element = HTTPField
  public typealias Index = Int
  public init() { fatalError() }
  public init(dictionaryLiteral elements: (HTTPField.Name, String)...) { fatalError() }
  public var startIndex: Int { fatalError() }
  public var endIndex: Int { fatalError() }
  public subscript(position: Int) -> HTTPField {
    get { fatalError() }
    set { fatalError() }
  }
  public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
  where C.Element == HTTPField { fatalError() }
  public subscript(name: HTTPField.Name) -> String? {
    get { fatalError() }
    set { fatalError() }
  }
  public subscript(fields name: HTTPField.Name) -> [HTTPField] {
    get { fatalError() }
    set { fatalError() }
  }
}

public struct HTTPRequest: Sendable, Hashable {
  public struct Method: Sendable, Hashable, RawRepresentable, LosslessStringConvertible {
    public let rawValue: String
    public init?(_ method: String) { fatalError() }
    public init?(rawValue: String) { fatalError() }
    public var description: String { fatalError() }
  }
  public var method: Method {
    get { fatalError() }
    set { fatalError() }
  }
  public var scheme: String? {
    get { fatalError() }
    set { fatalError() }
  }
  public var authority: String? {
    get { fatalError() }
    set { fatalError() }
  }
  public var path: String? {
    get { fatalError() }
    set { fatalError() }
  }
  public var headerFields: HTTPFields
  public init(method: Method, scheme: String?, authority: String?, path: String?, headerFields: HTTPFields = [:]) {
    fatalError()
  }
}

public struct HTTPResponse: Sendable, Hashable {
  public struct Status: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public init(code: Int, reasonPhrase: String = "") { fatalError() }
    public init(integerLiteral value: Int) { fatalError() }
    public var code: Int { fatalError() }
    public var reasonPhrase: String { fatalError() }
    public var description: String { fatalError() }
  }
  public var status: Status
  public var headerFields: HTTPFields
  public init(status: Status, headerFields: HTTPFields = [:]) { fatalError() }
}
