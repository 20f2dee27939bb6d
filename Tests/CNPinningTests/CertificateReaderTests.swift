// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Certificate reader")
struct CertificateReaderTests {
  static let root = try! TestIdentity.root("Reader Test Root")

  static func leaf(_ subject: [TestNameAttribute], notAfter: TimeInterval = 30 * 86400) throws -> CNCertificate {
    try root.issue(TestCertificateSpec(subject: subject, notAfter: notAfter)).certificate
  }

  @Test(arguments: [
    (TestNameAttribute.StringType.utf8String, "Zürich Root 🌍"),
    (.printableString, "R11"),
    (.ia5String, "api.example.com"),
    (.teletexString, "Café Root"),
    (.bmpString, "Ελληνικά CA"),
    (.universalString, "Root 😀 CA"),
  ])
  func stringTypesDecode(_ type: TestNameAttribute.StringType, _ text: String) throws {
    let certificate = try Self.leaf([.commonName(text, as: type)])
    #expect(certificate.commonName == text)
    #expect(certificate.subjectCommonNames == [text])
    #expect(certificate.commonNameProblem == nil)
  }

  @Test func theLastCommonNameIsUsed() throws {
    let certificate = try Self.leaf([.commonName("first.example.com"), .organization("Org"), .commonName("last.example.com")])
    #expect(certificate.commonName == "last.example.com")
    #expect(certificate.subjectCommonNames == ["first.example.com", "last.example.com"])
    #expect(certificate.issuerCommonNames == ["Reader Test Root"])
  }

  @Test func aCertificateWithoutCommonNameCannotMatch() throws {
    let certificate = try Self.leaf([.organization("No CN Inc"), .country("US")])
    #expect(certificate.commonName == nil)
    #expect(certificate.commonNameProblem == .missing)
    #expect(certificate.subjectCommonNames.isEmpty)
  }

  @Test(arguments: [
    (
      "NUL inside", TestNameAttribute.verbatim(tag: 0x0C, bytes: Array("api.example.com\0.evil.com".utf8)),
      CNCertificate.CommonNameProblem.containsNUL
    ),
    ("NUL in BMPString", TestNameAttribute.verbatim(tag: 0x1E, bytes: [0, 0x41, 0, 0]), .containsNUL),
    ("overlong UTF-8", TestNameAttribute.verbatim(tag: 0x0C, bytes: [0x52, 0xC0, 0xB1]), .undecodable("UTF8String")),
    ("UTF-8 surrogate", TestNameAttribute.verbatim(tag: 0x0C, bytes: [0x52, 0xED, 0xA0, 0x80]), .undecodable("UTF8String")),
    ("truncated UTF-8", TestNameAttribute.verbatim(tag: 0x0C, bytes: [0x52, 0xE2, 0x82]), .undecodable("UTF8String")),
    ("odd-length BMPString", TestNameAttribute.verbatim(tag: 0x1E, bytes: [0, 0x52, 0]), .undecodable("BMPString")),
    ("BMPString surrogate", TestNameAttribute.verbatim(tag: 0x1E, bytes: [0xD8, 0x3D, 0xDE, 0x00]), .undecodable("BMPString")),
    (
      "UniversalString beyond U+10FFFF", TestNameAttribute.verbatim(tag: 0x1C, bytes: [0, 0x11, 0, 0]),
      .undecodable("UniversalString")
    ),
    ("UniversalString bad length", TestNameAttribute.verbatim(tag: 0x1C, bytes: [0, 0, 0x52]), .undecodable("UniversalString")),
    ("8-bit PrintableString", TestNameAttribute.verbatim(tag: 0x13, bytes: [0x52, 0xE9]), .undecodable("PrintableString")),
    ("8-bit IA5String", TestNameAttribute.verbatim(tag: 0x16, bytes: [0x52, 0xFF]), .undecodable("IA5String")),
    (
      "VisibleString (not a supported type)", TestNameAttribute.verbatim(tag: 0x1A, bytes: Array("R11".utf8)),
      .undecodable("tag 0x1A")
    ),
    ("OCTET STRING", TestNameAttribute.verbatim(tag: 0x04, bytes: Array("R11".utf8)), .undecodable("tag 0x4")),
    ("constructed value", TestNameAttribute.verbatim(tag: 0x30, bytes: Array("R11".utf8)), .undecodable("tag 0x30")),
  ])
  func unreadableCommonNamesMakeTheCertificateUnmatchable(
    _ name: String, _ attribute: TestNameAttribute, _ problem: CNCertificate.CommonNameProblem
  ) throws {
    let certificate = try Self.leaf([.commonName("Good CN"), attribute])
    #expect(certificate.commonName == nil, "\(name)")
    #expect(certificate.commonNameProblem == problem, "\(name)")
    #expect(certificate.subjectCommonNames.count == 2)
  }

  @Test func anUnreadableEarlierCommonNameDoesNotMatterWhenTheLastIsGood() throws {
    let bad = TestNameAttribute.verbatim(tag: 0x0C, bytes: [0xFF])
    let certificate = try Self.leaf([bad, .commonName("good.example.com")])
    #expect(certificate.commonName == "good.example.com")
  }

  @Test func validityIsRead() throws {
    let before = Date()
    let certificate = try Self.leaf([.commonName("dates")], notAfter: 40 * 365 * 86400)  // GeneralizedTime after 2049
    let after = Date()
    #expect(certificate.notValidBefore >= before.addingTimeInterval(-3601).rounded())
    #expect(certificate.notValidBefore <= after.addingTimeInterval(-3599))
    #expect(abs(certificate.notValidAfter.timeIntervalSince(before) - 40 * 365 * 86400) < 5)
  }

  @Test func everyTruncationIsRejected() throws {
    let der = try Self.leaf([.commonName("truncate.example.com")]).derEncoded
    for length in 0..<der.count {
      #expect(throws: CNCertificateError.self) { try CNCertificate(derEncoded: der[0..<length]) }
    }
  }

  @Test func malformedDERIsRejectedWithTheRightError() throws {
    let der = try Self.leaf([.commonName("malformed.example.com")]).derEncoded
    #expect(throws: CNCertificateError.empty) { try CNCertificate(derEncoded: [UInt8]()) }
    #expect(throws: CNCertificateError.trailingData(field: "Certificate", offset: der.count)) {
      try CNCertificate(derEncoded: der + [0])
    }
    var wrongTag = der
    wrongTag[0] = 0x31
    #expect(throws: CNCertificateError.unexpectedTag(field: "Certificate", expected: "a SEQUENCE", found: 0x31, offset: 0)) {
      try CNCertificate(derEncoded: wrongTag)
    }
    #expect(throws: CNCertificateError.invalidLength(field: "Certificate", offset: 0)) {
      try CNCertificate(derEncoded: [0x30, 0x80, 0x00, 0x00])  // indefinite length
    }
    #expect(throws: CNCertificateError.invalidLength(field: "Certificate", offset: 0)) {
      try CNCertificate(derEncoded: [0x30, 0x81, 0x02, 0x05, 0x00])  // non-minimal long form
    }
    #expect(throws: CNCertificateError.invalidLength(field: "Certificate", offset: 0)) {
      try CNCertificate(derEncoded: [0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9])  // length of nine bytes
    }
    #expect(throws: CNCertificateError.truncated(field: "Certificate", offset: 6)) {
      try CNCertificate(derEncoded: [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x00])  // claims 2 GiB
    }
    #expect(throws: CNCertificateError.unexpectedTag(field: "Certificate", expected: "a SEQUENCE", found: 0x3F, offset: 0)) {
      try CNCertificate(derEncoded: [0x3F, 0x81, 0x01, 0x00])
    }
    #expect(throws: CNCertificateError.tooLarge(CNCertificate.maximumSize + 1)) {
      try CNCertificate(derEncoded: [UInt8](repeating: 0x30, count: CNCertificate.maximumSize + 1))
    }
    // The certificate's length says one byte more than there is.
    var longer = der
    longer[3] &+= 1
    #expect(throws: CNCertificateError.self) { try CNCertificate(derEncoded: longer) }
  }

  @Test func errorsNameTheField() {
    let error = CNCertificateError.unexpectedTag(
      field: "tbsCertificate.subject", expected: "a SEQUENCE", found: 0x31, offset: 100)
    #expect(
      error.description == "not a certificate: expected a SEQUENCE for tbsCertificate.subject, found tag 0x31 (at byte 100)")
  }

  /// Every single-byte corruption either throws a `CNCertificateError` or yields a certificate
  /// that OpenSSL reads the same way (or refuses to read).
  @Test func singleByteCorruptionsAreRejectedOrReadLikeOpenSSL() async throws {
    try await offTheSharedThreads {
      let der = try Self.leaf([.commonName("corrupt.example.com")]).derEncoded
      var rejected = 0
      var comparedWithOpenSSL = 0
      for index in 0..<der.count {
        for replacement: UInt8 in [0x00, 0xFF, der[index] ^ 0x80] where replacement != der[index] {
          var copy = der
          copy[index] = replacement
          let certificate: CNCertificate
          do {
            certificate = try CNCertificate(derEncoded: copy)
          } catch is CNCertificateError {
            rejected += 1
            continue
          }
          guard let reference = try? OpenSSLReference.read(copy) else { continue }
          comparedWithOpenSSL += 1
          #expect(certificate.subjectCommonNames == reference.subjectCommonNames.map { $0 ?? "" }, "byte \(index)")
          #expect(certificate.spkiSHA256Base64 == reference.spkiSHA256Base64, "byte \(index)")
        }
      }
      #expect(rejected > 0)
      #expect(comparedWithOpenSSL > 0)
    }
  }

  @Test func pemSingleAndBundle() throws {
    let leaf = try Self.root.issueLeaf("pem.example.com")
    let pem = leaf.certificate.pemEncoded
    #expect(try CNCertificate(pemEncoded: pem) == leaf.certificate)
    #expect(
      try CNCertificate(pemEncoded: "Subject: explanatory text\r\n" + pem.replacingOccurrences(of: "\n", with: "\r\n"))
        == leaf.certificate)
    // Old Mac line endings, indented lines and no final line ending read the same.
    let indented = pem.split(separator: "\n").map { "\t \($0)  " }.joined(separator: "\r")
    #expect(try CNCertificate(pemEncoded: indented) == leaf.certificate)
    // A line break inside the armour is a line break, whatever the base64 around it.
    #expect(throws: CNCertificateError.self) {
      try CNCertificate(
        pemEncoded: pem.replacingOccurrences(of: "-----BEGIN CERTIFICATE-----", with: "-----BEGIN\rCERTIFICATE-----"))
    }

    let key = try leaf.privateKey.pemEncoded
    let bundle = pem + key + Self.root.certificate.pemEncoded
    #expect(try CNCertificate.certificates(pemEncoded: bundle) == [leaf.certificate, Self.root.certificate])
    #expect(throws: CNCertificateError.multipleCertificatesInPEM(2)) { try CNCertificate(pemEncoded: bundle) }
    #expect(throws: CNCertificateError.noCertificateInPEM) { try CNCertificate(pemEncoded: key) }
    #expect(throws: CNCertificateError.noCertificateInPEM) { try CNCertificate.certificates(pemEncoded: "") }
  }

  @Test(arguments: [
    ("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n", "the CERTIFICATE block on line 1 is not valid base64"),
    ("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "the CERTIFICATE block on line 1 is not valid base64"),
    ("-----BEGIN CERTIFICATE-----\nMIIB\n", "\"BEGIN CERTIFICATE\" on line 1 has no END line"),
    (
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END PRIVATE KEY-----\n",
      "\"BEGIN CERTIFICATE\" on line 1 ends with \"END PRIVATE KEY\""
    ),
    ("-----END CERTIFICATE-----\n", "\"END CERTIFICATE\" on line 1 has no BEGIN line"),
    (
      "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\nMIIB\n-----END CERTIFICATE-----\n",
      "the block on line 1 has headers, which are not supported"
    ),
  ])
  func malformedPEMIsRejected(_ text: String, _ reason: String) {
    #expect(throws: CNCertificateError.invalidPEM(reason)) { try CNCertificate.certificates(pemEncoded: text) }
  }

  @Test func pemWhoseContentIsNotACertificateIsRejected() {
    let text = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    #expect(throws: CNCertificateError.self) { try CNCertificate(pemEncoded: text) }
  }

  @Test func equalityIsByEncoding() throws {
    let a = try Self.root.issueLeaf("same.example.com")
    let b = try Self.root.issueLeaf("same.example.com")
    #expect(a.certificate != b.certificate)  // different serial numbers
    #expect(try CNCertificate(derEncoded: a.certificate.derEncoded) == a.certificate)
    #expect(Set([a.certificate, a.certificate, b.certificate]).count == 2)
    #expect(Self.root.certificate.isSelfIssued)
    #expect(!a.certificate.isSelfIssued)
  }
}

extension Date {
  /// Whole seconds (certificate times and the NumericDates in test payloads have no fractions).
  func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
#endif
