import Foundation

/// Reads a configuration file's bytes into a `ConfigValue` tree: XML or binary property list, or JSON.
enum ConfigDocument {
  /// Configuration files larger than this are refused rather than read.
  static let maximumSize = 64 * 1024 * 1024

  static func read(_ data: Data) throws(CNParseError) -> ConfigValue {
    guard data.count <= maximumSize else {
      throw .malformedDocument("the document is \(data.count) bytes, more than the \(maximumSize)-byte limit")
    }
    switch sniffFormat(data) {
    case .json:
      do {
        return try StrictJSON.parse([UInt8](data))
      } catch {
        throw .malformedDocument(error.description)
      }
    case .propertyList:
      let object: Any
      do {
        object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
      } catch {
        throw .malformedDocument("not a readable property list: \(error.localizedDescription)")
      }
      return convert(object)
    case .unknown:
      throw .malformedDocument("neither a property list (XML or binary) nor a JSON object")
    }
  }

  private enum Format { case json, propertyList, unknown }

  private static func sniffFormat(_ data: Data) -> Format {
    if data.starts(with: Array("bplist".utf8)) { return .propertyList }
    var bytes = data[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return .unknown }
    switch first {
    case UInt8(ascii: "{"): return .json
    case UInt8(ascii: "<"): return .propertyList
    default: return .unknown
    }
  }

  /// Converts what `PropertyListSerialization` produced. Dictionary keys are sorted so that
  /// everything derived from the tree (including the order of errors) is deterministic.
  private static func convert(_ object: Any) -> ConfigValue {
    if let string = object as? String { return .string(string) }
    if isBoolean(object), let bool = object as? Bool { return .bool(bool) }
    if let dictionary = object as? [String: Any] {
      return .dictionary(dictionary.sorted { $0.key < $1.key }.map { ($0.key, convert($0.value)) })
    }
    if let array = object as? [Any] { return .array(array.map(convert)) }
    if let date = object as? Date { return .date(date) }
    if let data = object as? Data { return .data(data) }
    if let number = object as? NSNumber {
      if let integer = Int64(exactly: number.doubleValue), !isFloatingPoint(number) {
        return .integer(integer)
      }
      return .real(number.doubleValue)
    }
    return .null
  }

  private static func isBoolean(_ object: Any) -> Bool {
    #if canImport(Darwin)
      guard let number = object as? NSNumber else { return false }
      return CFGetTypeID(number) == CFBooleanGetTypeID()
    #else
      return type(of: object) == Bool.self
    #endif
  }

  private static func isFloatingPoint(_ number: NSNumber) -> Bool {
    let type = String(cString: number.objCType)
    return type == "d" || type == "f"
  }
}
