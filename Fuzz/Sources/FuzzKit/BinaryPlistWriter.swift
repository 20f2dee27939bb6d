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
    offsets.reserveCapacity(objects.count)
    for object in objects {
      offsets.append(bytes.count)
      encode(object, into: &bytes)
    }
    let tableOffset = bytes.count
    for offset in offsets { bigEndian(UInt64(offset), size: offsetSize, into: &bytes) }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: offsetSize), UInt8(truncatingIfNeeded: referenceSize)]
    bigEndian(claimedObjectCount ?? UInt64(objects.count), size: 8, into: &bytes)
    bigEndian(top, size: 8, into: &bytes)
    bigEndian(claimedTableOffset ?? UInt64(tableOffset), size: 8, into: &bytes)
    return bytes
  }

  private func encode(_ object: Object, into bytes: inout [UInt8]) {
    switch object {
    case .null: bytes.append(0x00)
    case .bool(let value): bytes.append(value ? 0x09 : 0x08)
    case .fill: bytes.append(0x0F)
    case .integer(let value, let exponent): integer(value, exponent: exponent, into: &bytes)
    case .real(let value, let single):
      if single {
        bytes.append(0x22)
        bigEndian(UInt64(Float(value).bitPattern), size: 4, into: &bytes)
      } else {
        bytes.append(0x23)
        bigEndian(value.bitPattern, size: 8, into: &bytes)
      }
    case .date(let value):
      bytes.append(0x33)
      bigEndian(value.bitPattern, size: 8, into: &bytes)
    case .data(let contents):
      marker(0x40, contents.count, into: &bytes)
      bytes += contents
    case .ascii(let contents):
      marker(0x50, contents.count, into: &bytes)
      bytes += contents
    case .utf16(let units):
      marker(0x60, units.count, into: &bytes)
      for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
    case .uid(let contents):
      bytes.append(0x80 | UInt8(max(0, min(contents.count, 16) - 1)))
      bytes += contents
    case .array(let references): collection(0xA0, references, into: &bytes)
    case .set(let references): collection(0xC0, references, into: &bytes)
    case .dictionary(let keys, let values):
      marker(0xD0, keys.count, into: &bytes)
      for reference in keys + values { bigEndian(reference, size: referenceSize, into: &bytes) }
    case .raw(let contents): bytes += contents
    }
  }

  private func collection(_ type: UInt8, _ references: [UInt64], into bytes: inout [UInt8]) {
    marker(type, references.count, into: &bytes)
    for reference in references { bigEndian(reference, size: referenceSize, into: &bytes) }
  }

  private func marker(_ type: UInt8, _ count: Int, into bytes: inout [UInt8]) {
    guard count >= 15 || overlongCounts else { return bytes.append(type | UInt8(count)) }
    bytes.append(type | 0x0F)
    integer(UInt64(count), exponent: count <= 0xFF ? 0 : count <= 0xFFFF ? 1 : 2, into: &bytes)
  }

  private func integer(_ value: UInt64, exponent: Int, into bytes: inout [UInt8]) {
    let size = 1 << min(exponent, 4)
    bytes.append(0x10 | UInt8(min(exponent, 4)))
    if size == 16 { bytes += [UInt8](repeating: 0, count: 8) }
    bigEndian(value, size: min(size, 8), into: &bytes)
  }

  /// `size` bytes of `value`, most significant first (zeros above the eighth byte).
  private func bigEndian(_ value: UInt64, size: Int, into bytes: inout [UInt8]) {
    for index in (0..<max(0, size)).reversed() {
      bytes.append(index >= 8 ? 0 : UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)))
    }
  }
}
