import Foundation

/// A JWS in compact serialisation (RFC 7515 §7.1), parsed strictly and verified.
struct CompactJWS {
  let algorithm: CNJWSAlgorithm
  let payload: [UInt8]

  /// Parses `token`, checks its header and verifies its signature with `key`; the payload is
  /// returned only when the signature is valid. Spaces, tabs and line breaks before and after the
  /// token are ignored (a file written by a shell or an editor ends with a line break); anywhere
  /// else, as any other character outside base64url and ".", they are refused.
  static func verify(_ token: Data, key: CNPolicySigningKey) throws(CNPolicyError) -> CompactJWS {
    guard token.count <= CNEnterprisePolicy.maximumTokenSize else { throw .tooLarge(token.count) }
    let isSurroundingSpace: (UInt8) -> Bool = { [0x20, 0x09, 0x0D, 0x0A].contains($0) }
    let trimmed = token.drop(while: isSurroundingSpace).reversed().drop(while: isSurroundingSpace).reversed()
    guard let text = String(bytes: trimmed, encoding: .utf8), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw .malformedToken("it contains whitespace or characters outside base64url")
    }
    let segments = text.split(separator: ".", omittingEmptySubsequences: false)
    guard segments.count == 3 else {
      throw .malformedToken("it has \(segments.count) segments separated by \".\"; a compact JWS has 3")
    }
    guard let headerBytes = Base64URL.decode(segments[0]) else { throw .malformedToken("the header is not base64url") }
    guard let signature = Base64URL.decode(segments[2]), !signature.isEmpty else {
      throw .malformedToken("the signature is missing or not base64url")
    }
    guard let payload = Base64URL.decode(segments[1]) else { throw .malformedToken("the payload is not base64url") }
    let algorithm = try parseHeader(headerBytes)
    guard algorithm.fits(key.kind) else {
      throw .keyDoesNotFitAlgorithm(algorithm: algorithm.rawValue, key: key.kind.description)
    }
    if let allowed = key.algorithm, allowed != algorithm {
      throw .algorithmNotAllowedByKey(algorithm: algorithm.rawValue, allowed: allowed.rawValue)
    }
    let signingInput = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
    guard SignatureBackend.verify(algorithm, key: key.subjectPublicKeyInfo, message: signingInput, signature: signature)
    else { throw .invalidSignature }
    return CompactJWS(algorithm: algorithm, payload: payload)
  }

  private static func parseHeader(_ bytes: [UInt8]) throws(CNPolicyError) -> CNJWSAlgorithm {
    let header: ConfigValue
    do {
      header = try StrictJSON.parse(bytes)
    } catch {
      throw .invalidHeader("not valid JSON: \(error)")
    }
    guard case .dictionary = header else { throw .invalidHeader("not a JSON object") }
    guard case .string(let name)? = header["alg"] else { throw .invalidHeader("\"alg\" is missing or not a string") }
    if name.lowercased() == "none" { throw .unsignedToken }
    if name.uppercased().hasPrefix("HS") { throw .symmetricAlgorithm(name) }
    guard let algorithm = CNJWSAlgorithm(headerValue: name) else { throw .unsupportedAlgorithm(name) }
    if let critical = header["crit"] {
      guard case .array(let names) = critical, !names.isEmpty else {
        throw .invalidHeader("\"crit\" must be a non-empty array of names")
      }
      let strings = names.compactMap { value -> String? in
        if case .string(let name) = value { return name }
        return nil
      }
      guard strings.count == names.count else { throw .invalidHeader("\"crit\" must hold strings") }
      throw .unsupportedCriticalHeaders(strings)
    }
    if let b64 = header["b64"] {
      guard case .bool(true) = b64 else { throw .invalidHeader("unencoded payloads (\"b64\": false) are not supported") }
    }
    return algorithm
  }
}
