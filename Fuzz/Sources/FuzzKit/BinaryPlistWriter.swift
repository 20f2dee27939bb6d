/// Writes binary property lists (`bplist00`) object by object, so that the generators control
/// every field a reader must check: reference and offset sizes, counts, offsets, the trailer.
public struct BinaryPlistWriter {
  /// One object of the table. References are indices into the table (or anything at all).
  public enum Object {
    case null
    case bool(Bool)
    case fill
    /// An integer of `1 << sizeExponent` bytes (exponent 0...4).
    case integer(UInt64, sizeExponent: Int)
    case real(Double, single: Bool)
    case date(Double)
    case data([UInt8])
    case ascii([UInt8])
    case utf16([UInt16])
    case uid([UInt8])
    case array([UInt64])
    case set([UInt64])
    case dictionary(keys: [UInt64], values: [UInt64])
    /// A marker byte the format does not define, and what follows it.
    case raw([UInt8])
  }

  public var objects: [Object] = []
  public var top: UInt64 = 0
  public var referenceSize = 1
  public var offsetSize = 1
  /// When set, written instead of the true values (trailer fields a reader must not trust).
  public var claimedObjectCount: UInt64?
  public var claimedTableOffset: UInt64?
  /// Counts of 15 or more use the extended form; this also uses it for small counts.
  public var overlongCounts = false

  public init() {}

  public func encoded() -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
      offsets.append(bytes.count)
      bytes += encode(object)
    }
    let tableOffset = bytes.count
    for offset in offsets { bytes += bigEndian(UInt64(offset), size: offsetSize) }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: offsetSize), UInt8(truncatingIfNeeded: referenceSize)]
    bytes += bigEndian(claimedObjectCount ?? UInt64(objects.count), size: 8)
    bytes += bigEndian(top, size: 8)
    bytes += bigEndian(claimedTableOffset ?? UInt64(tableOffset), size: 8)
    return bytes
  }

  private func encode(_ object: Object) -> [UInt8] {
    switch object {
    case .null: return [0x00]
    case .bool(let value): return [value ? 0x09 : 0x08]
    case .fill: return [0x0F]
    case .integer(let value, let exponent): return integer(value, exponent: exponent)
    case .real(let value, let single):
      return single ? [0x22] + bigEndian(UInt64(Float(value).bitPattern), size: 4) : [0x23] + bigEndian(value.bitPattern, size: 8)
    case .date(let value): return [0x33] + bigEndian(value.bitPattern, size: 8)
    case .data(let bytes): return marker(0x40, bytes.count) + bytes
    case .ascii(let bytes): return marker(0x50, bytes.count) + bytes
    case .utf16(let units): return marker(0x60, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    case .uid(let bytes): return [0x80 | UInt8(max(0, min(bytes.count, 16) - 1))] + bytes
    case .array(let references): return marker(0xA0, references.count) + references.flatMap(reference)
    case .set(let references): return marker(0xC0, references.count) + references.flatMap(reference)
    case .dictionary(let keys, let values):
      return marker(0xD0, keys.count) + keys.flatMap(reference) + values.flatMap(reference)
    case .raw(let bytes): return bytes
    }
  }

  private func marker(_ type: UInt8, _ count: Int) -> [UInt8] {
    guard count >= 15 || overlongCounts else { return [type | UInt8(count)] }
    let exponent = count <= 0xFF ? 0 : count <= 0xFFFF ? 1 : 2
    return [type | 0x0F] + integer(UInt64(count), exponent: exponent)
  }

  private func integer(_ value: UInt64, exponent: Int) -> [UInt8] {
    let size = 1 << min(exponent, 4)
    return [0x10 | UInt8(min(exponent, 4))]
      + (size == 16 ? [UInt8](repeating: 0, count: 8) + bigEndian(value, size: 8) : bigEndian(value, size: size))
  }

  private func reference(_ value: UInt64) -> [UInt8] { bigEndian(value, size: referenceSize) }

  private func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<max(0, size)).reversed().map { index in index >= 8 ? 0 : UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)) }
  }
}
