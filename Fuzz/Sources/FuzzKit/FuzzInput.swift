/// The fuzzer's bytes read as a stream of choices, for the structure-aware generators. Reading
/// past the end yields zeros, so every input describes some document; the generators are built
/// so that zeros describe the smallest, most ordinary choice.
public struct FuzzInput {
  private let bytes: [UInt8]
  private var position = 0

  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  public var isExhausted: Bool { position >= bytes.count }

  public mutating func byte() -> UInt8 {
    guard position < bytes.count else { return 0 }
    defer { position += 1 }
    return bytes[position]
  }

  /// A number in `0..<bound` from one byte (two when `bound` exceeds 256).
  public mutating func below(_ bound: Int) -> Int {
    guard bound > 1 else { return 0 }
    let raw = bound > 256 ? Int(byte()) << 8 | Int(byte()) : Int(byte())
    return raw % bound
  }

  /// True about one time in `odds` (never for a zero byte).
  public mutating func rarely(_ odds: Int) -> Bool { below(odds) == odds - 1 }

  public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

  public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

  /// A big-endian unsigned number of `size` bytes.
  public mutating func number(size: Int) -> UInt64 {
    (0..<size).reduce(UInt64(0)) { value, _ in value << 8 | UInt64(byte()) }
  }
}
