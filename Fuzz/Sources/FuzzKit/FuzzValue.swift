/// A property-list value as the configuration generators build it, before it is written in one
/// of the formats (XML or binary property list, JSON).
public indirect enum FuzzValue: Equatable {
  case dictionary([(key: String, value: FuzzValue)])
  case array([FuzzValue])
  case string(String)
  case integer(Int64)
  case real(Double)
  case bool(Bool)
  case date(Double)
  case data([UInt8])

  public static func == (lhs: FuzzValue, rhs: FuzzValue) -> Bool {
    switch (lhs, rhs) {
    case (.dictionary(let a), .dictionary(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.array(let a), .array(let b)): return a == b
    case (.string(let a), .string(let b)): return a == b
    case (.integer(let a), .integer(let b)): return a == b
    case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
    case (.bool(let a), .bool(let b)): return a == b
    case (.date(let a), .date(let b)): return a.bitPattern == b.bitPattern
    case (.data(let a), .data(let b)): return a == b
    default: return false
    }
  }
}

/// Builds configuration-shaped values: the keys and words the loaders know, in the nesting they
/// expect, with the input deciding where to break the shape (wrong types, unknown keys, odd
/// strings, deep nesting).
public enum ConfigurationShape {
  static let documentKeys = [
    "PinnedDomains", "NSAppTransportSecurity", "NSPinnedDomains", "CNPinningManager", "reportURI", "clockSkew",
  ]
  static let hostKeys = [
    "includesSubdomains", "chainSet", "spkiPins", "certificatePins", "expirationDate", "enforce", "reportURI",
    "NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities", "authenticationHost",
  ]
  static let leafKeys = ["type", "value", "sha256", "appliesTo", "file", "SPKI-SHA256-BASE64"]
  static let words = [
    "exact", "prefix", "prefixWithNumber", "suffix", "leaf", "ca", "any", "api.example.com", "*.example.com",
    "example.com", "127.0.0.1", "[::1]", "xn--bcher-kva.example", "ISRG Root X", "R", "Zürich", "",
    "2030-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "https://report.example/r",
    "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=", "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=", "cert.pem",
  ]
  static let allKeys = documentKeys + hostKeys + leafKeys + words

  /// A whole document: usually a dictionary of the top-level keys.
  public static func document(_ input: inout FuzzInput) -> FuzzValue {
    if input.rarely(16) { return value(&input, depth: 0) }
    return .dictionary(
      entries(&input, keys: documentKeys, depth: 0) { input, key, depth in
        switch key {
        case "PinnedDomains", "NSPinnedDomains": return hosts(&input, depth: depth + 1)
        case "NSAppTransportSecurity":
          return .dictionary([("NSPinnedDomains", hosts(&input, depth: depth + 1))])
        default: return value(&input, depth: depth + 1)
        }
      })
  }

  static func hosts(_ input: inout FuzzInput, depth: Int) -> FuzzValue {
    let count = 1 + input.below(3)
    return .dictionary(
      (0..<count).map { _ in
        (string(&input), host(&input, depth: depth + 1))
      })
  }

  static func host(_ input: inout FuzzInput, depth: Int) -> FuzzValue {
    .dictionary(
      entries(&input, keys: hostKeys, depth: depth) { input, key, depth in
        switch key {
        case "chainSet":
          return .array(
            (0..<(1 + input.below(3))).map { _ in
              .array((0..<(1 + input.below(4))).map { _ in leaf(&input, depth: depth + 2) })
            })
        case "spkiPins", "certificatePins", "NSPinnedCAIdentities", "NSPinnedLeafIdentities":
          return .array((0..<(1 + input.below(3))).map { _ in leaf(&input, depth: depth + 1) })
        default: return value(&input, depth: depth + 1)
        }
      })
  }

  static func leaf(_ input: inout FuzzInput, depth: Int) -> FuzzValue {
    .dictionary(
      entries(&input, keys: leafKeys, depth: depth) { input, _, depth in
        input.rarely(8) ? value(&input, depth: depth + 1) : .string(string(&input))
      })
  }

  /// One to four entries, keys mostly from `keys`, values from `make`.
  static func entries(
    _ input: inout FuzzInput, keys: [String], depth: Int, _ make: (inout FuzzInput, String, Int) -> FuzzValue
  ) -> [(key: String, value: FuzzValue)] {
    let count = 1 + input.below(4)
    return (0..<count).map { _ in
      let key = input.rarely(8) ? string(&input) : input.pick(keys)
      return (key, make(&input, key, depth))
    }
  }

  /// Any value; containers only while the nesting allows (deep nesting is its own choice).
  public static func value(_ input: inout FuzzInput, depth: Int) -> FuzzValue {
    let kind = input.below(depth > 80 ? 6 : 9)
    switch kind {
    case 0: return .string(string(&input))
    case 1: return .bool(input.byte() & 1 == 1)
    case 2: return .integer(Int64(bitPattern: input.number(size: input.pick([1, 2, 4, 8]))))
    case 3: return .real(Double(bitPattern: input.number(size: 8)))
    case 4: return .date(Double(Int32(bitPattern: UInt32(input.number(size: 4)))))
    case 5: return .data(input.bytes(input.below(40)))
    case 6: return .array((0..<input.below(4)).map { _ in value(&input, depth: depth + 1) })
    case 7:
      return .dictionary((0..<input.below(4)).map { _ in (string(&input), value(&input, depth: depth + 1)) })
    default:
      // A deep chain of single-element arrays or dictionaries: the nesting limits.
      let levels = input.below(200)
      var inner = FuzzValue.string(string(&input))
      for level in 0..<levels { inner = level % 2 == 0 ? .array([inner]) : .dictionary([("k", inner)]) }
      return inner
    }
  }

  /// A known word, or a string of the input's bytes (any Unicode, control characters included).
  public static func string(_ input: inout FuzzInput) -> String {
    switch input.below(6) {
    case 0, 1, 2: return input.pick(allKeys)
    case 3: return input.pick(words) + input.pick(words)
    case 4: return String(decoding: input.bytes(input.below(24)), as: UTF8.self)
    default:
      let scalars = (0..<input.below(8)).compactMap { _ in Unicode.Scalar(UInt32(input.number(size: 3)) % 0x110000) }
      return String(String.UnicodeScalarView(scalars))
    }
  }
}
