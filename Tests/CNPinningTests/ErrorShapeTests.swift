import CNPinning
import Foundation
import Testing

/// The case name of an error's package-level kind, as Swift prints it.
func caseName(_ kind: Any) -> String {
  Mirror(reflecting: kind).children.first?.label ?? "\(kind)"
}

/// Public errors are structs with an extensible `code` (issue 29, item 1): each value's code is
/// the code of its own case, callers tell failures apart in one comparison, and the seed's
/// spellings still compile.
@Suite struct ErrorShapeTests {
  static let parseErrors: [CNConfigurationError.Problem] = [
    .missingValue("includesSubdomains"), .wrongType(expected: "array", found: "string"),
    .unknownKey("chainset", suggestion: "chainSet"), .unknownLinkType("prefx", suggestion: "prefix"), .emptyValue,
    .emptyChain, .noChainsDefined, .duplicateChain(2), .invalidHost("a b", reason: "contains whitespace"),
    .duplicateHost("A.test", sameAs: "a.test"), .noPinnedDomains, .malformedDocument("not JSON"),
    .invalidDigest("abc", reason: "is not 32 bytes"), .unreadableCertificate("ca.pem", reason: "no such file"),
    .duplicatePin(1), .noPinsDefined, .noBackupPin, .invalidValue("ftp://x", reason: "is not https"),
    .expiryNotAfterIssue, .policyPinsNoHost, .clockSkewOutOfRange(301),
  ]

  static let policyErrors: [CNPolicyError] = [
    .privateKeyGiven, .malformedKey("bad DER"), .unsupportedKey("Ed25519"), .rsaKeyTooSmall(bits: 1024),
    .weakKey("its public exponent is 3"), .keyNotForSignatures("use is enc"),
    .algorithmNotAllowedByKey(algorithm: "RS256", allowed: "PS512"), .tooLarge(1 << 20), .malformedToken("two dots"),
    .invalidHeader("not JSON"), .unsignedToken, .symmetricAlgorithm("HS256"), .unsupportedAlgorithm("EdDSA"),
    .keyDoesNotFitAlgorithm(algorithm: "ES256", key: "RSA"), .unsupportedCriticalHeaders(["b64"]), .invalidSignature,
    .invalidPayload([CNConfigurationError.Problem.expiryNotAfterIssue.at("exp")]), .expired(Date(timeIntervalSince1970: 0)),
    .notYetValid(Date(timeIntervalSince1970: 0)), .policyAlreadyApplied, .noPolicyApplied,
    .olderThanAppliedPolicy(applied: Date(timeIntervalSince1970: 1), offered: Date(timeIntervalSince1970: 0)),
    .olderThanAcceptedPolicy(accepted: Date(timeIntervalSince1970: 1), offered: Date(timeIntervalSince1970: 0)),
    .reissuedWithDifferentContent(issuedAt: Date(timeIntervalSince1970: 0)), .noSigningKey,
  ]

  static let certificateErrors: [CNCertificateError] = [
    .empty, .tooLarge(1 << 20), .truncated(field: "tbsCertificate", offset: 4), .invalidLength(field: "issuer", offset: 9),
    .unexpectedTag(field: "version", expected: "[0]", found: 0x30, offset: 7), .trailingData(field: "Certificate", offset: 90),
    .invalidContent(field: "serialNumber", reason: "is empty"), .invalidPEM("no end line"), .noCertificateInPEM,
    .multipleCertificatesInPEM(2),
  ]

  @Test func everyValueCarriesItsOwnCasesCode() {
    var names: [String] = []
    for error in Self.parseErrors {
      #expect(error.code.description == caseName(error.kind))
      names.append(error.code.description)
    }
    for error in Self.policyErrors {
      #expect(error.code.description == caseName(error.kind))
      names.append(error.code.description)
    }
    for error in Self.certificateErrors {
      #expect(error.code.description == caseName(error.kind))
    }
    #expect(Set(Self.parseErrors.map(\.code)).count == Self.parseErrors.count, "two cases share a code")
    #expect(Set(Self.policyErrors.map(\.code)).count == Self.policyErrors.count, "two cases share a code")
    #expect(Set(Self.certificateErrors.map(\.code)).count == Self.certificateErrors.count, "two cases share a code")
    #expect(CNPolicyError.notPinned.code == .notPinned && CNPolicyError.notServerTrust.code == .notServerTrust)
  }

  /// What a caller needs is a field away, without matching on cases.
  @Test func detailsAreFieldsNotPayloads() throws {
    let unknown = CNConfigurationError.Problem.unknownLinkType("prefx", suggestion: "prefix")
    #expect(unknown.code == .unknownLinkType && unknown.value == "prefx" && unknown.suggestion == "prefix")
    #expect(CNConfigurationError.Problem.duplicateChain(3).index == 3)
    #expect(CNConfigurationError.Problem.invalidHost("a b", reason: "contains whitespace").reason == "contains whitespace")
    let payload = CNPolicyError.invalidPayload([CNConfigurationError.Problem.expiryNotAfterIssue.at("exp")])
    #expect(payload.problems.map(\.path) == ["exp"])
    #expect(CNPolicyError.expired(Date(timeIntervalSince1970: 5)).date == Date(timeIntervalSince1970: 5))
    #expect(CNPolicyError.weakKey("ROCA").reason == "ROCA")
    let truncated = CNCertificateError.truncated(field: "issuer", offset: 12)
    #expect(truncated.field == "issuer" && truncated.offset == 12)
    // A real reader failure, through the public surface only.
    let error = try #require(throws: CNCertificateError.self) { _ = try CNCertificate(derEncoded: [0x30, 0x05, 0x02]) }
    #expect(error.code == .truncated || error.code == .invalidLength, "\(error)")
  }

  /// The seed's spellings compile and mean what they did: values with the seed's names, equal
  /// when their details are, and `catch CNPolicyError.notPinned`.
  @Test func theSeedsSpellingsStillWork() {
    #expect(CNConfigurationError.Problem.missingValue("includesSubdomains") == .missingValue("includesSubdomains"))
    #expect(CNConfigurationError.Problem.missingValue("includesSubdomains") != .missingValue("chainSet"))
    #expect(CNConfigurationError.Problem.duplicateChain(1) != .duplicateChain(2))
    #expect(throws: CNConfigurationError(.noChainsDefined)) { _ = try CNConfiguration([]) }
    var caught = false
    do {
      throw CNPolicyError.notPinned
    } catch CNPolicyError.notServerTrust {
      Issue.record("notPinned caught as notServerTrust")
    } catch CNPolicyError.notPinned {
      caught = true
    } catch {
      Issue.record("notPinned not caught by name: \(error)")
    }
    #expect(caught)
  }
}
