import Foundation

/// A strict reader for binary property lists (`bplist00`): the types a configuration can hold
/// (dictionary, array, string, boolean, integer, real, date, data), with every offset, count and
/// reference checked, cycles refused and repeated dictionary keys refused. Foundation's reader
/// crashes on some malformed files; a pinning configuration must never crash the app.
struct BinaryPropertyList {
  struct FormatError: Error, CustomStringConvertible {
    let message: String
    var description: String { "invalid binary property list: \(message)" }
  }

  /// What one document may expand to. Objects may be referenced many times (Foundation's writer
  /// shares equal strings), so the file's size does not bound the values it describes: a chain
  /// of objects that each reference the next twice doubles with every level. The budget is
  /// proportional to the file, with a floor for small ones.
  struct Budget {
    var values: Int
    var bytes: Int

    init(fileSize: Int) {
      values = max(4096, 4 * fileSize)
      bytes = max(64 * 1024, 8 * fileSize)
    }
  }

  private let bytes: [UInt8]
  /// The object area: objects live before the offset table, and nothing may extend past it.
  private let objects: ByteCursor<[UInt8]>
  private let offsets: [Int]
  private let referenceSize: Int

  static func parse(_ data: Data) throws(FormatError) -> ConfigValue {
    let bytes = [UInt8](data)
    guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { throw FormatError(message: "no bplist00 header") }
    let file = ByteCursor(bytes)
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    let referenceSize = Int(bytes[trailer + 7])
    let count = try number(file, at: trailer + 8, size: 8)
    let top = try number(file, at: trailer + 16, size: 8)
    let tableStart = try number(file, at: trailer + 24, size: 8)
    guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, top < count,
      tableStart >= 8, tableStart < trailer, count <= (trailer - tableStart) / offsetSize
    else { throw FormatError(message: "the trailer is inconsistent") }
    var offsets: [Int] = []
    offsets.reserveCapacity(count)
    for index in 0..<count {
      let offset = try number(file, at: tableStart + index * offsetSize, size: offsetSize)
      guard offset >= 8, offset < tableStart else { throw FormatError(message: "object \(index) lies outside the object area") }
      offsets.append(offset)
    }
    let reader = BinaryPropertyList(
      bytes: bytes, objects: ByteCursor(bytes, range: 0..<tableStart), offsets: offsets, referenceSize: referenceSize)
    var path: Set<Int> = []
    var budget = Budget(fileSize: bytes.count)
    return try reader.object(UInt64(top), depth: 0, path: &path, budget: &budget)
  }

  private static func number(_ file: ByteCursor<[UInt8]>, at start: Int, size: Int) throws(FormatError) -> Int {
    guard let value = file.bigEndian(at: start, size: size) else { throw FormatError(message: "a number runs past the end") }
    guard value <= UInt64(Int.max) else { throw FormatError(message: "a number is too large") }
    return Int(value)
  }

  private func object(_ reference: UInt64, depth: Int, path: inout Set<Int>, budget: inout Budget) throws(FormatError)
    -> ConfigValue
  {
    guard depth < ConfigValue.maximumNesting else {
      throw FormatError(message: "nesting deeper than \(ConfigValue.maximumNesting) levels")
    }
    guard reference < UInt64(offsets.count) else {
      throw FormatError(message: "a reference to object \(reference), which does not exist")
    }
    budget.values -= 1
    guard budget.values >= 0 else {
      throw FormatError(
        message:
          "the document expands to more than \(Budget(fileSize: bytes.count).values) values (objects referenced over and over)")
    }
    let index = Int(reference)
    let start = offsets[index]
    let marker = bytes[start]
    let low = Int(marker & 0x0F)
    switch marker >> 4 {
    case 0x0:
      switch marker {
      case 0x08: return .bool(false)
      case 0x09: return .bool(true)
      default: throw FormatError(message: "object \(index) has an unsupported type 0x\(String(marker, radix: 16))")
      }
    case 0x1:
      guard low <= 3 else { throw FormatError(message: "object \(index) is an integer wider than 64 bits") }
      let size = 1 << low
      let raw = try scalar(at: start + 1, size: size)
      return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
    case 0x2:
      guard low == 2 || low == 3 else { throw FormatError(message: "object \(index) is a real of unsupported size") }
      let raw = try scalar(at: start + 1, size: 1 << low)
      let value = low == 2 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
      guard value.isFinite else { throw FormatError(message: "object \(index) is not a finite number") }
      return .real(value)
    case 0x3:
      guard marker == 0x33 else { throw FormatError(message: "object \(index) is a malformed date") }
      let seconds = Double(bitPattern: try scalar(at: start + 1, size: 8))
      guard seconds.isFinite else { throw FormatError(message: "object \(index) is not a valid date") }
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case 0x4:
      let (count, contentStart) = try length(low, at: start, object: index)
      try spend(count, of: &budget)
      return .data(Data(try slice(contentStart, count, object: index)))
    case 0x5:
      let (count, contentStart) = try length(low, at: start, object: index)
      try spend(count, of: &budget)
      let content = try slice(contentStart, count, object: index)
      guard content.allSatisfy({ $0 < 0x80 }) else {
        throw FormatError(message: "object \(index) is an ASCII string with 8-bit bytes")
      }
      return .string(String(decoding: content, as: UTF8.self))
    case 0x6:
      let (count, contentStart) = try length(low, at: start, object: index)
      let (byteCount, overflow) = count.multipliedReportingOverflow(by: 2)
      guard !overflow else { throw FormatError(message: "object \(index) is too long") }
      try spend(byteCount, of: &budget)
      let content = try slice(contentStart, byteCount, object: index)
      let units = stride(from: content.startIndex, to: content.endIndex, by: 2).map {
        UInt16(content[$0]) << 8 | UInt16(content[$0 + 1])
      }
      var scalars = String.UnicodeScalarView()
      var decoder = UTF16()
      var iterator = units.makeIterator()
      decoding: while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar): scalars.append(scalar)
        case .emptyInput: break decoding
        case .error: throw FormatError(message: "object \(index) is not valid UTF-16")
        }
      }
      return .string(String(scalars))
    case 0xA, 0xD:
      guard path.insert(index).inserted else { throw FormatError(message: "object \(index) contains itself") }
      defer { path.remove(index) }
      let (count, contentStart) = try length(low, at: start, object: index)
      let references = try self.references(contentStart, count: marker >> 4 == 0xD ? count * 2 : count, object: index)
      if marker >> 4 == 0xA {
        var elements: [ConfigValue] = []
        elements.reserveCapacity(count)
        for reference in references { elements.append(try object(reference, depth: depth + 1, path: &path, budget: &budget)) }
        return .array(elements)
      }
      var entries: [(key: String, value: ConfigValue)] = []
      var keys = Set<String>()
      for position in 0..<count {
        guard case .string(let key) = try object(references[position], depth: depth + 1, path: &path, budget: &budget) else {
          throw FormatError(message: "a dictionary key in object \(index) is not a string")
        }
        guard keys.insert(key).inserted else { throw FormatError(message: "duplicate key \"\(key)\" in a dictionary") }
        entries.append((key, try object(references[count + position], depth: depth + 1, path: &path, budget: &budget)))
      }
      entries.sort { $0.key < $1.key }
      return .dictionary(entries)
    default:
      throw FormatError(
        message:
          "object \(index) has an unsupported type 0x\(String(marker, radix: 16)) (UIDs and sets are not configuration values)")
    }
  }

  /// A count in the marker's low nibble, or (0xF) in the integer object that follows it.
  private func length(_ low: Int, at start: Int, object index: Int) throws(FormatError) -> (count: Int, contentStart: Int) {
    guard low == 0xF else { return (low, start + 1) }
    guard start + 1 < bytes.count, bytes[start + 1] >> 4 == 0x1, bytes[start + 1] & 0x0F <= 3 else {
      throw FormatError(message: "object \(index) has a malformed length")
    }
    let size = 1 << Int(bytes[start + 1] & 0x0F)
    let count = Int(clamping: try scalar(at: start + 2, size: size))
    // No object can hold more elements or bytes than the file has, which also keeps the
    // arithmetic on counts from overflowing.
    guard count <= bytes.count else { throw FormatError(message: "object \(index) claims \(count) elements") }
    return (count, start + 2 + size)
  }

  private func slice(_ start: Int, _ count: Int, object index: Int) throws(FormatError) -> ArraySlice<UInt8> {
    guard let range = objects.range(at: start, count: count) else {
      throw FormatError(message: "object \(index) runs past the end")
    }
    return bytes[range]
  }

  /// The object references of a container, as unsigned numbers (an 8-byte reference can exceed
  /// `Int.max`; `object` refuses any that names no object).
  private func references(_ start: Int, count: Int, object index: Int) throws(FormatError) -> [UInt64] {
    let (byteCount, overflow) = count.multipliedReportingOverflow(by: referenceSize)
    guard !overflow else { throw FormatError(message: "object \(index) has too many elements") }
    let content = try slice(start, byteCount, object: index)
    return stride(from: content.startIndex, to: content.endIndex, by: referenceSize).map { offset in
      objects.bigEndian(at: offset, size: referenceSize) ?? 0  // inside `content`, checked above
    }
  }

  /// Takes `count` decoded bytes from the budget.
  private func spend(_ count: Int, of budget: inout Budget) throws(FormatError) {
    budget.bytes -= count
    guard budget.bytes >= 0 else {
      throw FormatError(
        message:
          "the document expands to more than \(Budget(fileSize: bytes.count).bytes) bytes of text and data (objects referenced over and over)"
      )
    }
  }
}

extension BinaryPropertyList {
  /// An unsigned big-endian value of `size` bytes inside the object area.
  fileprivate func scalar(at start: Int, size: Int) throws(FormatError) -> UInt64 {
    guard let value = objects.bigEndian(at: start, size: size) else { throw FormatError(message: "a value runs past the end") }
    return value
  }
}
