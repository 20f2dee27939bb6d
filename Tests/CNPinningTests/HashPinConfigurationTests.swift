// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Hash pins in configuration files")
struct HashPinConfigurationTests {
  static let host = #"PinnedDomains["api.test"]"#
  static let digest = Data(repeating: 3, count: 32).base64EncodedString()
  static let other = Data(repeating: 4, count: 32).base64EncodedString()

  @Test func spkiAndCertificatePinsLoadWithScopes() throws {
    let json =
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "spkiPins": [{"sha256": "\#(Self.digest)", "appliesTo": "ca"}, {"sha256": "\#(Self.other)"}], "certificatePins": [{"sha256": "\#(Self.digest)", "appliesTo": "leaf"}], "expirationDate": "2030-01-01T00:00:00Z", "enforce": false, "reportURI": "https://reports.test/pins"}}}"#
    let configuration = try #require(try CNPinningDocument(data: Data(json.utf8)).entries.first?.configuration)
    #expect(
      configuration.spkiPins == [
        try CNSPKIPin(sha256Base64: Self.digest, scope: .ca), try CNSPKIPin(sha256Base64: Self.other, scope: .any),
      ])
    #expect(configuration.certificatePins == [try CNCertificatePin(sha256Base64: Self.digest, scope: .leaf)])
    #expect(configuration.chains.isEmpty)
    #expect(configuration.expirationDate == Date(timeIntervalSince1970: 1_893_456_000))
    #expect(configuration.enforce == false)
    #expect(configuration.reportURI == URL(string: "https://reports.test/pins"))
  }

  @Test func certificateFilesLoadRelativeToTheConfiguration() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory.appendingPathComponent("certs"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let leaf = try TestIdentity.root("File Root").issueLeaf("api.test")
    try leaf.certificate.pemEncoded.write(
      to: directory.appendingPathComponent("certs/leaf.pem"), atomically: true, encoding: .utf8)
    try Data(leaf.issuer!.certificate.derEncoded).write(to: directory.appendingPathComponent("certs/root.der"))
    let json =
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "certificatePins": [{"file": "certs/leaf.pem", "appliesTo": "leaf"}, {"file": "certs/root.der", "appliesTo": "ca"}]}}}"#
    let file = directory.appendingPathComponent("pins.json")
    try json.write(to: file, atomically: true, encoding: .utf8)
    let manager = try CNPinningManager(contentsOf: file)
    #expect(manager.evaluate(host: "api.test", chain: leaf.chain).allowsConnection)
    let document = try CNPinningDocument(contentsOf: file)
    #expect(document.entries[0].configuration.certificatePins.map(\.file) == ["certs/leaf.pem", "certs/root.der"])
    // Converting keeps the file references.
    #expect(String(decoding: document.encoded(as: .propertyList), as: UTF8.self).contains("<key>file</key>"))
    let plist = directory.appendingPathComponent("pins.plist")
    try document.encoded(as: .propertyList).write(to: plist)
    #expect(try CNPinningDocument(contentsOf: plist) == document)
  }

  @Test(arguments: [
    (
      #"{"includesSubdomains": false, "spkiPins": [{"sha256": "AAAA"}, {"sha256": "\#(other)"}]}"#,
      [
        CNConfigurationError.Problem(
          path: "\(host).spkiPins[0].sha256", error: .invalidDigest("AAAA", reason: "decodes to 3 bytes; a SHA-256 digest has 32")
        )
      ]
    ),
    (
      #"{"includesSubdomains": false, "spkiPins": [{"sha256": "%%%"}, {"sha256": "\#(other)"}]}"#,
      [.init(path: "\(host).spkiPins[0].sha256", error: .invalidDigest("%%%", reason: "is not valid base64"))]
    ),
    (
      #"{"includesSubdomains": false, "spkiPins": [{"sha256": "\#(digest)", "appliesTo": "root"}, {"sha256": "\#(other)"}]}"#,
      [.init(path: "\(host).spkiPins[0].appliesTo", error: .invalidValue("root", reason: "is not one of leaf, ca, any"))]
    ),
    (#"{"includesSubdomains": false, "spkiPins": [{"sha256": "\#(digest)"}]}"#, [.init(path: host, error: .noBackupPin)]),
    (
      #"{"includesSubdomains": false, "spkiPins": [{"sha256": "\#(digest)"}, {"sha256": "\#(digest)"}]}"#,
      [.init(path: host, error: .duplicatePin(1))]
    ),
    (#"{"includesSubdomains": false, "spkiPins": []}"#, [.init(path: "\(host).spkiPins", error: .noPinsDefined)]),
    (
      #"{"includesSubdomains": false, "spkiPins": [{"sha265": "\#(digest)"}, {"sha256": "\#(other)"}]}"#,
      [
        .init(path: "\(host).spkiPins[0].sha265", error: .unknownKey("sha265", suggestion: "sha256")),
        .init(path: "\(host).spkiPins[0].sha256", error: .missingValue("sha256")),
      ]
    ),
    (
      #"{"includesSubdomains": false, "spkiPins": [{"file": "x.pem"}, {"sha256": "\#(other)"}]}"#,
      [
        .init(path: "\(host).spkiPins[0].file", error: .unknownKey("file", suggestion: nil)),
        .init(path: "\(host).spkiPins[0].sha256", error: .missingValue("sha256")),
      ]
    ),
    (
      #"{"includesSubdomains": false, "certificatePins": [{"file": "/nonexistent/x.pem"}, {"sha256": "\#(other)"}]}"#,
      [
        .init(
          path: "\(host).certificatePins[0].file", error: .unreadableCertificate("/nonexistent/x.pem", reason: "no such file"))
      ]
    ),
    (
      #"{"includesSubdomains": false, "certificatePins": [{"file": "/etc/hostname"}, {"sha256": "\#(other)"}]}"#,
      [
        .init(
          path: "\(host).certificatePins[0].file",
          error: .unreadableCertificate(
            "/etc/hostname", reason: "not a PEM certificate: no \"-----BEGIN CERTIFICATE-----\" block"))
      ]
    ),
    (
      #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}]], "expirationDate": "next year"}"#,
      [
        .init(
          path: "\(host).expirationDate",
          error: .invalidValue("next year", reason: "is not an ISO 8601 date such as 2027-01-31T00:00:00Z"))
      ]
    ),
    (
      #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}]], "enforce": "no"}"#,
      [.init(path: "\(host).enforce", error: .wrongType(expected: "a boolean", found: "a string"))]
    ),
    (
      #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}]], "reportURI": "http://r.test/"}"#,
      [.init(path: "\(host).reportURI", error: .invalidValue("http://r.test/", reason: "is not an https URL"))]
    ),
    (#"{"includesSubdomains": false}"#, [.init(path: "\(host).chainSet", error: .missingValue("chainSet"))]),
  ])
  func problemsNameTheElement(_ body: String, _ expected: [CNConfigurationError.Problem]) {
    #expect(problems(json: #"{"PinnedDomains": {"api.test": \#(body)}}"#) == expected)
  }

  @Test(arguments: CNPinningDocument.Format.allCases)
  func conversionKeepsEveryKey(_ format: CNPinningDocument.Format) throws {
    let json =
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": true, "chainSet": [[{"type": "exact", "value": "A"}]], "spkiPins": [{"sha256": "\#(Self.digest)", "appliesTo": "leaf"}], "certificatePins": [{"sha256": "\#(Self.other)"}], "expirationDate": "2030-01-01T00:00:00Z", "enforce": false, "reportURI": "https://r.test/x"}}}"#
    let document = try CNPinningDocument(data: Data(json.utf8))
    let again = try CNPinningDocument(data: document.encoded(as: format))
    #expect(again == document)
  }
}
#endif
