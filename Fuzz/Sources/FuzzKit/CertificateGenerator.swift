/// X.509 certificates from the input: the real structure (TBS, names, validity, keys,
/// extensions) with the input choosing each field's tag, string type, content and length form
/// (short, long, non-minimal, indefinite, off by one), and real public keys mixed with invented
/// ones, so that fuzzing spends its time inside the certificate reader rather than at its door.
public struct CertificateGenerator {
  private var input: FuzzInput
  private let realKeys: [[UInt8]]

  /// `realKeys` are DER SubjectPublicKeyInfos made by OpenSSL, used whole or as a start.
  public static func generate(_ input: inout FuzzInput, realKeys: [[UInt8]]) -> [UInt8] {
    var generator = CertificateGenerator(input: input, realKeys: realKeys)
    let der = generator.certificate()
    input = generator.input
    return der
  }

  static let commonName: [UInt8] = [0x55, 0x04, 0x03]
  static let attributeTypes: [[UInt8]] = [
    commonName, [0x55, 0x04, 0x0A], [0x55, 0x04, 0x06], [0x55, 0x04, 0x0B], [0x55, 0x04, 0x05],
    [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x01],
  ]
  static let signatureAlgorithms: [[UInt8]] = [
    [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B], [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02],
    [0x2B, 0x65, 0x70], [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05],
  ]
  static let stringTags: [UInt8] = [0x0C, 0x13, 0x16, 0x1E, 0x1C, 0x14, 0x12, 0x1A, 0x04, 0x30]
  static let curves: [[UInt8]] = [
    [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07], [0x2B, 0x81, 0x04, 0x00, 0x22], [0x2B, 0x81, 0x04, 0x00, 0x23],
    [0x2B, 0x81, 0x04, 0x00, 0x0A],
  ]

  mutating func certificate() -> [UInt8] {
    let tbs = sequence(
      [
        node(0xA0, node(0x02, [input.pick([2, 1, 0, 3])])),
        node(0x02, input.bytes(1 + input.below(20))),
        algorithm(),
        name(),
        sequence([time(), time()]),
        name(),
        subjectPublicKeyInfo(),
        node(0xA3, sequence((0..<input.below(4)).map { _ in extensionField() })),
      ].filter { _ in !input.rarely(32) })
    return sequence([tbs, algorithm(), node(0x03, [0] + input.bytes(input.below(72)))])
  }

  mutating func name() -> [UInt8] {
    sequence(
      (0..<input.below(5)).map { _ in
        node(0x31, (0..<(1 + (input.rarely(4) ? 1 : 0))).flatMap { _ in attribute() })
      })
  }

  mutating func attribute() -> [UInt8] {
    let type = input.rarely(16) ? input.bytes(1 + input.below(6)) : input.pick(Self.attributeTypes)
    let tag = input.pick(Self.stringTags)
    var content: [UInt8]
    switch tag {
    case 0x1E: content = Array(ConfigurationShape.string(&input).utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    case 0x1C:
      content = ConfigurationShape.string(&input).unicodeScalars.flatMap { scalar in
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: scalar.value >> (8 * UInt32($0))) }
      }
    default: content = Array(ConfigurationShape.string(&input).utf8)
    }
    if input.rarely(8) { content = input.bytes(input.below(16)) }
    return sequence([node(0x06, type), node(tag, content)])
  }

  mutating func time() -> [UInt8] {
    let digits = (0..<6).map { _ in String(format2(input.below(100))) }.joined()
    if input.byte() & 1 == 0 { return node(0x17, Array((digits.suffix(12) + input.pick(["Z", "", "+0100"])).utf8)) }
    return node(0x18, Array((format2(input.below(100)) + digits + input.pick(["Z", ".5Z", ""])).utf8))
  }

  func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

  mutating func algorithm() -> [UInt8] {
    var parts = [node(0x06, input.rarely(16) ? input.bytes(input.below(10)) : input.pick(Self.signatureAlgorithms))]
    if input.byte() & 1 == 0 { parts.append([0x05, 0x00]) }
    return sequence(parts)
  }

  mutating func subjectPublicKeyInfo() -> [UInt8] {
    switch input.below(5) {
    case 0, 1:
      let key = input.pick(realKeys)
      guard input.rarely(4), !key.isEmpty else { return key }
      var edited = key
      edited[input.below(edited.count)] ^= input.byte() | 1
      return edited
    case 2:
      let modulus = input.bytes(input.below(300))
      let rsaKey = sequence([node(0x02, modulus), node(0x02, input.bytes(input.below(5)))])
      return sequence([
        sequence([node(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]), [0x05, 0x00]]),
        node(0x03, [0] + rsaKey),
      ])
    case 3:
      return sequence([
        sequence([node(0x06, [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]), node(0x06, input.pick(Self.curves))]),
        node(0x03, [input.pick([0, 1])] + [input.pick([4, 2, 3])] + input.bytes(input.below(140))),
      ])
    default:
      return sequence([
        sequence([node(0x06, input.pick([[0x2B, 0x65, 0x70], [0x2B, 0x65, 0x71], input.bytes(3)]))]),
        node(0x03, [0] + input.bytes(input.below(60))),
      ])
    }
  }

  mutating func extensionField() -> [UInt8] {
    let names = sequence(
      (0..<input.below(4)).map { _ in node(input.pick([0x82, 0x87, 0x81]), Array(ConfigurationShape.string(&input).utf8)) })
    let (type, value): ([UInt8], [UInt8]) = input.pick([
      ([0x55, 0x1D, 0x11], names), ([0x55, 0x1D, 0x13], sequence([[0x01, 0x01, 0xFF]])),
      ([0x55, 0x1D, 0x0F], [0x03, 0x02, 0x05, 0xA0]),
    ])
    return sequence([node(0x06, type)] + (input.rarely(4) ? [[0x01, 0x01, 0xFF]] : []) + [node(0x04, value)])
  }

  mutating func sequence(_ children: [[UInt8]]) -> [UInt8] { node(0x30, children.flatMap { $0 }) }

  /// A tag, a length in the form the input picks, and the content.
  mutating func node(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    let count = content.count
    var length: [UInt8]
    switch input.rarely(8) ? input.below(5) : 0 {
    case 1: length = [0x81, UInt8(truncatingIfNeeded: count)]
    case 2: length = [0x82, UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count)]
    case 3: return [tag, 0x80] + content + [0, 0]
    case 4: length = minimalLength(count + input.pick([-1, 1, 0x7F]))
    default: length = minimalLength(count)
    }
    return [input.rarely(64) ? input.byte() : tag] + length + content
  }

  func minimalLength(_ count: Int) -> [UInt8] {
    guard count >= 0x80 else { return [UInt8(max(0, count))] }
    var bytes: [UInt8] = []
    var remaining = count
    while remaining > 0 {
      bytes.insert(UInt8(remaining & 0xFF), at: 0)
      remaining >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }
}
