// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Policy payloads and windows")
struct PolicyPayloadTests {
  static let now = Date(timeIntervalSince1970: 1_800_000_000)

  /// What a signer checks before signing: the verifier's own reading of the payload.
  @Test func payloadsAreValidatedAsVerificationReadsThem() throws {
    try CNEnterprisePolicy.validatePayload(
      Data(#"{"iat": 1800000000, "exp": 1800003600, "*": [[{"type": "exact", "value": "A"}]]}"#.utf8))
    let repeated = #"{"iat": 1800000000, "exp": 1800003600, "a.test": [[{"value": "A"}]], "a.test": [[{"value": "B"}]]}"#
    #expect {
      try CNEnterprisePolicy.validatePayload(Data(repeated.utf8))
    } throws: { error in
      guard let error = error as? CNPolicyError, error.code == .invalidPayload else { return false }
      return error.problems.first?.description.contains(#"duplicate key "a.test""#) == true
    }
  }

  @Test(arguments: [
    (
      #"{"exp": 1800003600, "*": [[{"type": "exact", "value": "A"}]]}"#,
      [CNConfigurationError.Problem.missingValue("iat").at("payload.iat")]
    ),
    (
      #"{"iat": "yesterday", "exp": 1800003600, "*": [[{"type": "exact", "value": "A"}]]}"#,
      [.init(path: "payload.iat", error: .wrongType(expected: "a NumericDate (seconds since 1970)", found: "a string"))]
    ),
    (
      #"{"iat": 1800000000, "exp": 1799999999, "*": [[{"type": "exact", "value": "A"}]]}"#,
      [.init(path: "payload.exp", error: .expiryNotAfterIssue)]
    ),
    (
      #"{"iat": 1800000000, "exp": 1800003600}"#,
      [.init(path: "payload", error: .policyPinsNoHost)]
    ),
    (
      #"{"iat": 1800000000, "exp": 1800003600, "api.test": [[{"type": "prefx", "value": "A"}]]}"#,
      [.init(path: #"payload["api.test"][0][0].type"#, error: .unknownLinkType("prefx", suggestion: "prefix"))]
    ),
    (
      #"{"iat": 1800000000, "exp": 1800003600, "https://api.test": [[{"type": "exact", "value": "A"}]]}"#,
      [
        .init(
          path: #"payload["https://api.test"]"#,
          error: .invalidHost("https://api.test", reason: "contains a URL scheme; write the host name only"))
      ]
    ),
    (
      #"{"iat": 1800000000, "exp": 1800003600, "api.test": "A"}"#,
      [.init(path: #"payload["api.test"]"#, error: .wrongType(expected: "an array of chains", found: "a string"))]
    ),
    (
      #"{"iat": 1800000000, "exp": 1800003600, "api.test": [[{"type": "exact", "value": "A"}]], "API.test.": [[{"type": "exact", "value": "B"}]]}"#,
      [.init(path: #"payload["api.test"]"#, error: .duplicateHost("api.test", sameAs: "API.test."))]
    ),
    (#"{"iat": 1800000000, "exp": 1800003600, "*": []}"#, [.init(path: #"payload["*"]"#, error: .noChainsDefined)]),
  ])
  func payloadProblemsNameTheElement(_ payload: String, _ expected: [CNConfigurationError.Problem]) throws {
    let keys = try PolicyKeyPair(.p256)
    #expect(
      policyError { _ = try CNEnterprisePolicy(token: try keys.sign(payload), key: keys.publicKey, at: Self.now) }
        == .invalidPayload(expected))
  }

  @Test func standardClaimsAreToleratedAndFractionalDatesRead() throws {
    let keys = try PolicyKeyPair(.p256)
    let payload =
      #"{"iat": 1800000000.5, "exp": 1800003600.25, "nbf": 1800000100, "iss": "corp", "aud": ["app"], "sub": 7, "jti": "x", "api.test": [[{"value": "A"}]]}"#
    let policy = try CNEnterprisePolicy(token: try keys.sign(payload), key: keys.publicKey, at: Self.now.addingTimeInterval(200))
    #expect(policy.issuedAt == Date(timeIntervalSince1970: 1_800_000_000.5))
    #expect(policy.expiry == Date(timeIntervalSince1970: 1_800_003_600.25))
    #expect(policy.start == Date(timeIntervalSince1970: 1_800_000_100))
    #expect(policy.warnings.map(\.path) == [#"payload["api.test"][0][0]"#])
  }

  @Test func theWindowIsEnforcedWithOptionalSkew() throws {
    let keys = try PolicyKeyPair(.p256)
    let token = try keys.sign(
      #"{"iat": 1800000000, "nbf": 1800000060, "exp": 1800003600, "*": [[{"type": "exact", "value": "A"}]]}"#)
    let start = Date(timeIntervalSince1970: 1_800_000_060)
    let expiry = Date(timeIntervalSince1970: 1_800_003_600)
    #expect(
      policyError { _ = try CNEnterprisePolicy(token: token, key: keys.publicKey, at: start.addingTimeInterval(-1)) }
        == .notYetValid(start))
    #expect(try CNEnterprisePolicy(token: token, key: keys.publicKey, at: start).isValid(at: start))
    #expect(policyError { _ = try CNEnterprisePolicy(token: token, key: keys.publicKey, at: expiry) } == .expired(expiry))
    // A 30-second skew accepts a clock that is 20 seconds off either way, and no more.
    #expect(
      try CNEnterprisePolicy(token: token, key: keys.publicKey, at: start.addingTimeInterval(-20), clockSkew: 30).isValid(
        at: expiry.addingTimeInterval(20), clockSkew: 30))
    #expect(
      policyError {
        _ = try CNEnterprisePolicy(token: token, key: keys.publicKey, at: expiry.addingTimeInterval(31), clockSkew: 30)
      } == .expired(expiry))
  }
}
#endif
