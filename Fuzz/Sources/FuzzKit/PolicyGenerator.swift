import CNPinningTestKit

/// Compact JWS tokens from the input: a header and payload of the input's choosing written as
/// JSON (with every spelling the JSON writer knows), encoded in base64url (sometimes wrongly),
/// and signed by one of the fuzzer's keys, by another key, or not at all.
public struct PolicyGenerator {
  /// The keys tokens may be signed with; verification uses one of them.
  public struct Keys {
    public let privateKeys: [TestPrivateKey]

    public init() throws {
      privateKeys = try [TestPrivateKey.generate(.p256), .generate(.p384), .generate(.p521), .generate(.rsa2048)]
    }
  }

  public struct Token {
    public let text: [UInt8]
    /// Which key signed the token as sent (nil: its signature is not a signature by any key).
    public let signer: Int?
    public let verifier: Int
  }

  static let algorithms = [
    "ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "none", "HS256", "EdDSA", "es256", "RS1",
  ]

  public static func generate(_ input: inout FuzzInput, keys: Keys) -> Token {
    var headerEntries: [(key: String, value: FuzzValue)] = [
      ("alg", .string(input.rarely(16) ? ConfigurationShape.string(&input) : input.pick(algorithms)))
    ]
    if input.byte() & 1 == 1 { headerEntries.append(("typ", .string("JWT"))) }
    if input.rarely(8) { headerEntries.append(("crit", .array([.string("exp")]))) }
    if input.rarely(8) { headerEntries.append(("b64", .bool(input.byte() & 1 == 1))) }
    if input.rarely(8) { headerEntries.append((ConfigurationShape.string(&input), ConfigurationShape.value(&input, depth: 0))) }
    if input.rarely(16) { headerEntries.reverse() }
    let header = TextWriter.json(.dictionary(headerEntries), &input)
    let payload = TextWriter.json(payloadValue(&input), &input)
    let signingInput = base64URL(header, &input) + "." + base64URL(payload, &input)
    let verifier = input.below(keys.privateKeys.count)
    var signer: Int? = input.rarely(4) ? input.below(keys.privateKeys.count) : verifier
    var signature: [UInt8]
    let (digest, pss) = digestChoice(&input)
    if input.rarely(8) {
      signer = nil
      signature = input.bytes(input.below(140))
    } else if let index = signer,
      let made = try? keys.privateKeys[index].signature(of: Array(signingInput.utf8), digest: digest, pss: pss)
    {
      signature = made
      if input.rarely(16), !signature.isEmpty {
        signature[input.below(signature.count)] ^= input.byte() | 1
        signer = nil
      }
    } else {
      signer = nil
      signature = []
    }
    let token = signingInput + "." + base64URL(signature, &input)
    return Token(text: Array(token.utf8), signer: signer, verifier: verifier)
  }

  static func digestChoice(_ input: inout FuzzInput) -> (TestDigest, Bool) {
    (input.pick([.sha256, .sha384, .sha512, .sha1]), input.rarely(4))
  }

  static func payloadValue(_ input: inout FuzzInput) -> FuzzValue {
    if input.rarely(16) { return ConfigurationShape.value(&input, depth: 0) }
    let moment = 1_800_000_000
    func time() -> FuzzValue {
      input.rarely(8) ? ConfigurationShape.value(&input, depth: 0) : .integer(Int64(moment + input.below(20000) - 10000))
    }
    var entries: [(key: String, value: FuzzValue)] = [("iat", time()), ("exp", time())]
    if input.rarely(4) { entries.append(("nbf", time())) }
    for _ in 0..<input.below(4) {
      let host = input.rarely(4) ? "*" : ConfigurationShape.string(&input)
      let chains = FuzzValue.array(
        (0..<(1 + input.below(2))).map { _ in
          .array((0..<(1 + input.below(3))).map { _ in ConfigurationShape.leaf(&input, depth: 3) })
        })
      entries.append((host, input.rarely(8) ? ConfigurationShape.value(&input, depth: 1) : chains))
    }
    if input.rarely(8) { entries.append((input.pick(["iss", "sub", "aud", "jti"]), .string("x"))) }
    return .dictionary(entries)
  }

  static func base64URL(_ bytes: [UInt8], _ input: inout FuzzInput) -> String {
    var text = FuzzKit.base64URL(bytes, padded: input.rarely(16))
    if input.rarely(32) { text += input.pick(["=", " ", "+", "\n", "."]).utf8 }
    return String(decoding: text, as: UTF8.self)
  }
}
