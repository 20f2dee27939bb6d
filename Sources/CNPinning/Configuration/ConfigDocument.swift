import Foundation

/// Reads a configuration file's bytes into a ``ConfigValue`` tree: XML or binary property list, or JSON.
package enum ConfigDocument {
  /// Configuration files larger than this are refused rather than read.
  static let maximumSize = 64 * 1024 * 1024

  package static func read(_ data: Data) throws(CNConfigurationError) -> ConfigValue {
    guard data.count <= maximumSize else {
      throw CNConfigurationError(
        .malformedDocument("the document is \(data.count) bytes, more than the \(maximumSize)-byte limit"))
    }
    switch sniffFormat(data) {
    case .json:
      do {
        return try StrictJSON.parse([UInt8](data))
      } catch {
        throw CNConfigurationError(.malformedDocument(error.description))
      }
    case .binaryPropertyList:
      do {
        return try BinaryPropertyList.parse(data)
      } catch {
        throw CNConfigurationError(.malformedDocument(error.description))
      }
    case .xmlPropertyList:
      do {
        return try XMLPropertyList.parse(data)
      } catch {
        throw CNConfigurationError(.malformedDocument(error.description))
      }
    case .unknown:
      throw CNConfigurationError(.malformedDocument("neither a property list (XML or binary) nor a JSON object"))
    }
  }

  /// A property list (XML or binary), read as configurations are (every key once, the one XML
  /// reader), as Foundation's property-list objects: for `cnpin lint --against`'s exported files.
  package static func propertyList(_ data: Data) throws(CNConfigurationError) -> Any {
    guard [.binaryPropertyList, .xmlPropertyList].contains(sniffFormat(data)) else {
      throw CNConfigurationError(.malformedDocument("not a property list (XML or binary)"))
    }
    return try read(data).foundationObject
  }

  private enum Format { case json, binaryPropertyList, xmlPropertyList, unknown }

  private static func sniffFormat(_ data: Data) -> Format {
    if data.starts(with: Array("bplist".utf8)) { return .binaryPropertyList }
    var bytes = data[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return .unknown }
    switch first {
    case UInt8(ascii: "{"): return .json
    case UInt8(ascii: "<"): return .xmlPropertyList
    default: return .unknown
    }
  }
}
