// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Signed policies")
struct PolicyTokenTests {
  @Test(arguments: CNJWSAlgorithm.allCases)
  func everyAlgorithmSignsAndVerifiesAndInteroperatesWithPyJWT(_ algorithm: CNJWSAlgorithm) async throws {
    try await offTheSharedThreads {
      let keys = try PolicyKeyPair(keyType(for: algorithm))
      let payload = policyPayload()
      let token = try keys.sign(payload, algorithm)
      let policy = try CNEnterprisePolicy(token: token, key: keys.publicKey)
      #expect(policy.algorithm == algorithm)
      #expect(policy.chains["*"]?.first?.links.map(\.value) == ["Inspection Root", ".test"])

      // Our token verifies with PyJWT …
      let decoded = try await python(
        "import sys, jwt, json; print(json.dumps(jwt.decode(sys.argv[1], sys.argv[2], algorithms=[sys.argv[3]]), sort_keys=True))",
        [String(decoding: token, as: UTF8.self), try keys.privateKey.publicKeyPEM, algorithm.rawValue])
      #expect(decoded.contains("Inspection Root"))
      // … and PyJWT's token verifies with us.
      let foreign = try await python(
        "import sys, jwt, json; print(jwt.encode(json.loads(sys.argv[1]), sys.argv[2], algorithm=sys.argv[3]))",
        [payload, keys.privatePEM, algorithm.rawValue])
      #expect(try CNEnterprisePolicy(token: Data(foreign.utf8), key: keys.publicKey) == policy)
    }
  }

  @Test(arguments: [
    ("RS256", ["-sha256"]), ("PS384", ["-sha384", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:-1"]),
    ("ES256", ["-sha256"]), ("ES512", ["-sha512"]),
  ])
  func tokensSignedWithTheOpenSSLCommandLineVerify(_ alg: String, _ options: [String]) async throws {
    let algorithm = try #require(CNJWSAlgorithm(rawValue: alg))
    let keys = try PolicyKeyPair(keyType(for: algorithm))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jws-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let keyFile = directory.appendingPathComponent("key.pem")
    try keys.privatePEM.write(to: keyFile, atomically: true, encoding: .utf8)
    // The seed's signer writes the algorithm in lower case; ECDSA signatures come out as DER.
    let input = base64url(#"{"alg":"\#(alg.lowercased())"}"#) + "." + base64url(policyPayload())
    let inputFile = directory.appendingPathComponent("input")
    try Data(input.utf8).write(to: inputFile)
    let run = try await TestProcess.run("/usr/bin/env", ["openssl", "dgst"] + options + ["-sign", keyFile.path, inputFile.path])
    let signature = run.stdout
    #expect(run.status == 0)
    let token = Data((input + "." + base64url(signature)).utf8)
    #expect(try CNEnterprisePolicy(token: token, key: keys.publicKey).algorithm == algorithm)
  }

  @Test func tamperingIsDetected() throws {
    let keys = try PolicyKeyPair(.p256)
    let token = String(decoding: try keys.sign(policyPayload()), as: UTF8.self)
    let parts = token.split(separator: ".").map(String.init)
    let otherPayload = base64url(policyPayload(#""*": [[{"type": "exact", "value": "Attacker Root"}]]"#))
    let otherHeader = base64url(#"{"alg":"ES256","typ":"JWT","kid":"x"}"#)
    var signature = Array(
      Data(base64Encoded: parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "==")!)
    signature[5] ^= 1
    for tampered in [
      [parts[0], otherPayload, parts[2]], [otherHeader, parts[1], parts[2]], [parts[0], parts[1], base64url(Data(signature))],
    ] {
      #expect(
        policyError { _ = try CNEnterprisePolicy(token: Data(tampered.joined(separator: ".").utf8), key: keys.publicKey) }
          == .invalidSignature)
    }
    let otherKey = try PolicyKeyPair(.p256, slot: 42)
    #expect(policyError { _ = try CNEnterprisePolicy(token: Data(token.utf8), key: otherKey.publicKey) } == .invalidSignature)
  }

  @Test func keyAndAlgorithmMustFit() throws {
    let rsa = try PolicyKeyPair(.rsa2048)
    let p256 = try PolicyKeyPair(.p256)
    let p384 = try PolicyKeyPair(.p384)
    let es256 = try p256.sign(policyPayload(), .es256)
    #expect(
      policyError { _ = try CNEnterprisePolicy(token: es256, key: rsa.publicKey) }
        == .keyDoesNotFitAlgorithm(algorithm: "ES256", key: "RSA-2048"))
    #expect(
      policyError { _ = try CNEnterprisePolicy(token: es256, key: p384.publicKey) }
        == .keyDoesNotFitAlgorithm(algorithm: "ES256", key: "EC P-384"))
    let rs256 = try rsa.sign(policyPayload(), .rs256)
    #expect(
      policyError { _ = try CNEnterprisePolicy(token: rs256, key: p256.publicKey) }
        == .keyDoesNotFitAlgorithm(algorithm: "RS256", key: "EC P-256"))
    // A PS256 header over an RS256 signature (and the reverse) does not verify.
    let parts = String(decoding: rs256, as: UTF8.self).split(separator: ".")
    let relabelled = [base64url(#"{"alg":"PS256"}"#), String(parts[1]), String(parts[2])].joined(separator: ".")
    #expect(policyError { _ = try CNEnterprisePolicy(token: Data(relabelled.utf8), key: rsa.publicKey) } == .invalidSignature)
  }

  @Test func hmacWithThePublicKeyAsSecretIsRefused() async throws {
    let keys = try PolicyKeyPair(.rsa2048)
    let token = try await python(
      "import sys, hmac, hashlib, base64, json\nb = lambda d: base64.urlsafe_b64encode(d).rstrip(b'=').decode()\ni = b(b'{\"alg\":\"HS256\"}') + '.' + b(sys.argv[1].encode())\nprint(i + '.' + b(hmac.new(sys.argv[2].encode(), i.encode(), hashlib.sha256).digest()))",
      [policyPayload(), try keys.privateKey.publicKeyPEM])
    #expect(
      policyError { _ = try CNEnterprisePolicy(token: Data(token.utf8), key: keys.publicKey) } == .symmetricAlgorithm("HS256"))
  }

  @Test(arguments: [
    (#"{"alg":"none"}"#, CNPolicyError.unsignedToken),
    (#"{"alg":"NONE"}"#, .unsignedToken),
    (#"{"alg":"HS512"}"#, .symmetricAlgorithm("HS512")),
    (#"{"alg":"RS1"}"#, .unsupportedAlgorithm("RS1")),
    (#"{"alg":"Es256"}"#, .unsupportedAlgorithm("Es256")),
    (#"{"alg":"EdDSA"}"#, .unsupportedAlgorithm("EdDSA")),
    (#"{"typ":"JWT"}"#, .invalidHeader("\"alg\" is missing or not a string")),
    (#"{"alg":256}"#, .invalidHeader("\"alg\" is missing or not a string")),
    (#"{"alg":"ES256","crit":["exp"]}"#, .unsupportedCriticalHeaders(["exp"])),
    (#"{"alg":"ES256","crit":[]}"#, .invalidHeader("\"crit\" must be a non-empty array of names")),
    (#"{"alg":"ES256","b64":false}"#, .invalidHeader("unencoded payloads (\"b64\": false) are not supported")),
    (
      #"{"alg":"ES256","alg":"none"}"#,
      .invalidHeader("not valid JSON: invalid JSON at line 1, column 16: duplicate key \"alg\" in the same object")
    ),
    (#"["ES256"]"#, .invalidHeader("not a JSON object")),
  ])
  func headersAreCheckedStrictly(_ header: String, _ expected: CNPolicyError) throws {
    let keys = try PolicyKeyPair(.p256)
    let token = base64url(header) + "." + base64url(policyPayload()) + "." + base64url("signature")
    #expect(policyError { _ = try CNEnterprisePolicy(token: Data(token.utf8), key: keys.publicKey) } == expected)
  }

  @Test func malformedTokensAreRefused() throws {
    let keys = try PolicyKeyPair(.p256)
    let token = String(decoding: try keys.sign(policyPayload()), as: UTF8.self)
    let cases: [(String, CNPolicyError)] = [
      (
        token.replacingOccurrences(of: ".", with: ". "), .malformedToken("it contains whitespace or characters outside base64url")
      ),
      (token + "\u{0C}", .malformedToken("it contains whitespace or characters outside base64url")),
      ("\u{00}" + token, .malformedToken("it contains whitespace or characters outside base64url")),
      (token + ".extra", .malformedToken("it has 4 segments separated by \".\"; a compact JWS has 3")),
      (
        token.split(separator: ".").prefix(2).joined(separator: "."),
        .malformedToken("it has 2 segments separated by \".\"; a compact JWS has 3")
      ),
      (token + "=", .malformedToken("the signature is missing or not base64url")),
      (
        token.replacingOccurrences(of: ".", with: ".+", options: [], range: token.range(of: ".")),
        .malformedToken("the payload is not base64url")
      ),
      (
        String(token.split(separator: ".")[0]) + "." + String(token.split(separator: ".")[1]) + ".",
        .malformedToken("the signature is missing or not base64url")
      ),
      ("é." + token, .malformedToken("it contains whitespace or characters outside base64url")),
    ]
    for (text, expected) in cases {
      #expect(policyError { _ = try CNEnterprisePolicy(token: Data(text.utf8), key: keys.publicKey) } == expected, "\(text)")
    }
    let huge = Data(repeating: UInt8(ascii: "A"), count: CNEnterprisePolicy.maximumTokenSize + 1)
    #expect(policyError { _ = try CNEnterprisePolicy(token: huge, key: keys.publicKey) } == .tooLarge(huge.count))
    #expect(policyError { _ = try CNEnterprisePolicy(token: Data([0xFF, 0x2E, 0x2E]), key: keys.publicKey) } != nil)
  }

  /// A token file as a shell (`cnpin policy sign … > policy.jws`), an editor or a paste leaves
  /// it: spaces, tabs and line breaks around the token are ignored (issue 28: the documented flow
  /// failed with "contains whitespace").
  @Test func whitespaceAroundTheTokenIsIgnored() throws {
    let keys = try PolicyKeyPair(.p256)
    let token = String(decoding: try keys.sign(policyPayload()), as: UTF8.self)
    for text in [token + "\n", token + "\r\n", " \t" + token + " \n\n", "\n" + token] {
      let policy = try CNEnterprisePolicy(token: Data(text.utf8), key: keys.publicKey)
      #expect(policy == (try CNEnterprisePolicy(token: Data(token.utf8), key: keys.publicKey)), "\(text.debugDescription)")
    }
  }

  @Test func ecdsaSignaturesInRawAndDERFormBothVerify() async throws {
    let keys = try PolicyKeyPair(.p384)
    let token = String(decoding: try keys.sign(policyPayload(), .es384), as: UTF8.self)
    let parts = token.split(separator: ".").map(String.init)
    let raw = try #require(
      Data(
        base64Encoded: parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/").padding(
          toLength: (parts[2].count + 3) / 4 * 4, withPad: "=", startingAt: 0)))
    #expect(raw.count == 96)
    let der = try await python(
      "import sys, base64; from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature as e\nr = bytes.fromhex(sys.argv[1])\nprint(base64.urlsafe_b64encode(e(int.from_bytes(r[:48], 'big'), int.from_bytes(r[48:], 'big'))).rstrip(b'=').decode())",
      [raw.map { String(format: "%02x", $0) }.joined()])
    let derToken = parts[0] + "." + parts[1] + "." + der
    #expect(try CNEnterprisePolicy(token: Data(derToken.utf8), key: keys.publicKey).algorithm == .es384)
  }
}
#endif
