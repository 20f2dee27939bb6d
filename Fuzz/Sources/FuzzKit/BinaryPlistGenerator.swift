/// Binary property lists from the input: either a configuration-shaped value written as
/// Foundation writes it (equal strings shared), or a free object table whose references the
/// input chooses — relative to the referring object (a zero byte means "the next object"), or as
/// raw numbers of the reference size — with the trailer's claims sometimes false.
public enum BinaryPlistGenerator {
  public static func generate(_ input: inout FuzzInput) -> [UInt8] {
    var writer = BinaryPlistWriter()
    writer.referenceSize = input.rarely(8) ? input.below(10) : input.pick([1, 2, 4, 8])
    writer.offsetSize = input.rarely(8) ? input.below(10) : input.pick([1, 2, 4, 8])
    writer.overlongCounts = input.rarely(8)
    if input.byte() & 1 == 0 {
      let value = ConfigurationShape.document(&input)
      var table = SharedTable()
      writer.top = table.add(value)
      writer.objects = table.objects
    } else {
      writer.objects = objectTable(&input)
      writer.top = UInt64(input.below(writer.objects.count))
    }
    if input.rarely(16) { writer.claimedObjectCount = input.number(size: 8) }
    if input.rarely(16) { writer.claimedTableOffset = input.number(size: 8) }
    if input.rarely(16) { writer.top = input.number(size: 8) }
    return writer.encoded()
  }

  /// A reference as the input chose it: relative to the referring object (0 is the next one,
  /// wrapping around the table), or a raw number of the reference size.
  enum Reference {
    case relative(Int)
    case raw(UInt64)

    func resolved(from index: Int, count: Int) -> UInt64 {
      switch self {
      case .relative(let offset): return UInt64((index + 1 + offset) % count)
      case .raw(let value): return value
      }
    }
  }

  /// An object whose references are not yet resolved, so that it can be repeated.
  enum Template {
    case array([Reference])
    case set([Reference])
    case dictionary(keys: [Reference], values: [Reference])
    case other(BinaryPlistWriter.Object)
  }

  static func objectTable(_ input: inout FuzzInput) -> [BinaryPlistWriter.Object] {
    let count = 1 + input.below(64)
    var templates: [Template] = []
    while templates.count < count {
      func reference() -> Reference {
        let choice = input.byte()
        return choice >= 0xF0 ? .raw(input.number(size: 8)) : .relative(Int(choice))
      }
      func references() -> [Reference] { (0..<input.below(6)).map { _ in reference() } }
      switch input.below(15) {
      case 0: templates.append(.array(references()))
      case 1:
        let keys = references()
        templates.append(.dictionary(keys: keys, values: keys.map { _ in reference() }))
      case 2: templates.append(.other(.ascii(Array(ConfigurationShape.string(&input).utf8.filter { $0 < 0x80 }))))
      case 3: templates.append(.other(.utf16(Array(ConfigurationShape.string(&input).utf16))))
      case 4: templates.append(.other(.integer(input.number(size: 8), sizeExponent: input.below(5))))
      case 5: templates.append(.other(.bool(input.byte() & 1 == 1)))
      case 6: templates.append(.other(.real(Double(bitPattern: input.number(size: 8)), single: input.byte() & 1 == 1)))
      case 7: templates.append(.other(.date(Double(bitPattern: input.number(size: 8)))))
      case 8: templates.append(.other(.data(input.bytes(input.below(32)))))
      case 9: templates.append(.set(references()))
      case 10: templates.append(.other(.uid(input.bytes(1 + input.below(16)))))
      case 11: templates.append(.other(input.pick([.null, .fill])))
      case 12:
        // A large container (the extended count form, many references).
        templates.append(.array((0..<(15 + input.below(2000))).map { _ in reference() }))
      case 13:
        // The previous object again, several times: long runs of one shape (deep chains,
        // wide tables) from a few bytes.
        if let last = templates.last {
          templates += Array(repeating: last, count: min(count - templates.count, 1 + input.below(64)))
        }
      default: templates.append(.other(.raw(input.bytes(1 + input.below(12)))))
      }
    }
    return templates.prefix(count).enumerated().map { index, template in
      func resolve(_ references: [Reference]) -> [UInt64] { references.map { $0.resolved(from: index, count: count) } }
      switch template {
      case .array(let references): return .array(resolve(references))
      case .set(let references): return .set(resolve(references))
      case .dictionary(let keys, let values): return .dictionary(keys: resolve(keys), values: resolve(values))
      case .other(let object): return object
      }
    }
  }

  /// Flattens a value into a table, sharing equal strings as Foundation's writer does.
  struct SharedTable {
    var objects: [BinaryPlistWriter.Object] = []
    var strings: [String: UInt64] = [:]

    mutating func add(_ value: FuzzValue) -> UInt64 {
      if case .string(let text) = value, let existing = strings[text] { return existing }
      let index = UInt64(objects.count)
      objects.append(.null)
      let object: BinaryPlistWriter.Object
      switch value {
      case .string(let text):
        strings[text] = index
        object = text.utf8.allSatisfy { $0 < 0x80 } ? .ascii(Array(text.utf8)) : .utf16(Array(text.utf16))
      case .bool(let flag): object = .bool(flag)
      case .integer(let number): object = .integer(UInt64(bitPattern: number), sizeExponent: 3)
      case .real(let number): object = .real(number, single: false)
      case .date(let seconds): object = .date(seconds - 978_307_200)
      case .data(let bytes): object = .data(bytes)
      case .array(let elements): object = .array(elements.map { add($0) })
      case .dictionary(let entries):
        let keys = entries.map { add(.string($0.key)) }
        object = .dictionary(keys: keys, values: entries.map { add($0.value) })
      }
      objects[Int(index)] = object
      return index
    }
  }
}
