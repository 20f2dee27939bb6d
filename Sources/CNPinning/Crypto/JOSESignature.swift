/// JOSE signature encodings shared by every backend.
enum JOSESignature {
  /// The DER (X9.62) form of an ECDSA signature given as JOSE's raw r ‖ s, or nil when the bytes
  /// are not two coordinates of `size` bytes.
  static func derFromRaw(_ raw: [UInt8], coordinateSize size: Int) -> [UInt8]? {
    guard size > 0, raw.count == 2 * size else { return nil }
    return DERWriter.sequence([
      DERWriter.unsignedInteger(Array(raw[..<size])), DERWriter.unsignedInteger(Array(raw[size...])),
    ])
  }

  /// JOSE's raw r ‖ s form of a DER ECDSA signature, each padded to `size` bytes.
  static func rawFromDER(_ der: [UInt8], coordinateSize size: Int) -> [UInt8]? {
    der.withUnsafeBufferPointer { bytes -> [UInt8]? in
      var top = DERReader(bytes, range: 0..<bytes.count)
      guard let sequence = try? top.read(DERReader.sequence, "signature"), top.isAtEnd else { return nil }
      var numbers = top.reader(inside: sequence)
      guard let r = try? numbers.read(DERReader.integer, "r"), let s = try? numbers.read(DERReader.integer, "s"),
        numbers.isAtEnd
      else { return nil }
      var result: [UInt8] = []
      for number in [r, s] {
        let magnitude = Array(bytes[number.content].drop { $0 == 0 })
        guard magnitude.count <= size else { return nil }
        result += [UInt8](repeating: 0, count: size - magnitude.count) + magnitude
      }
      return result
    }
  }
}
