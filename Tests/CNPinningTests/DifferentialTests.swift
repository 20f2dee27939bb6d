// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The pure-Swift reader must read every certificate the test kit makes exactly as OpenSSL does.
@Suite("Reader agrees with OpenSSL")
struct DifferentialTests {
  static let subjects: [[TestNameAttribute]] = {
    var subjects: [[TestNameAttribute]] = TestNameAttribute.StringType.allCases.map {
      [
        .country("DE"), .organization("Differential"),
        .commonName("Diff Ärger 1", as: $0 == .printableString || $0 == .ia5String ? .utf8String : $0),
      ]
    }
    subjects += TestNameAttribute.StringType.allCases.map { [.commonName("R12", as: $0)] }
    subjects.append([.commonName("first"), .commonName("second"), .commonName("third 😀")])
    subjects.append([.organization("no common name")])
    subjects.append([TestNameAttribute.verbatim(tag: 0x0C, bytes: Array("nul\0inside".utf8))])
    subjects.append([.commonName(String(repeating: "long ", count: 200))])
    return subjects
  }()

  static func compare(_ certificate: CNCertificate) throws {
    let reference = try OpenSSLReference.read(certificate.derEncoded)
    #expect(certificate.subjectCommonNames == reference.subjectCommonNames.map { $0 ?? "" })
    #expect(certificate.issuerCommonNames == reference.issuerCommonNames.map { $0 ?? "" })
    #expect(certificate.commonName == reference.subjectCommonNames.last.flatMap { $0?.contains("\0") == true ? nil : $0 })
    #expect(certificate.spkiSHA256Base64 == reference.spkiSHA256Base64)
    #expect(Data(certificate.sha256).base64EncodedString() == reference.certificateSHA256Base64)
  }

  @Test(arguments: TestKeyType.allCases + [.rsa1024])
  func everyKeyType(_ keyType: TestKeyType) async throws {
    try await offTheSharedThreads {
      let root = try TestIdentity.root("Diff Root \(keyType)", keyType: keyType)
      let intermediate = try root.issueIntermediate("Diff Intermediate", keyType: keyType)
      let leaf = try intermediate.issueLeaf(
        "leaf.example.com", dnsNames: ["leaf.example.com"], ipAddresses: ["127.0.0.1", "::1"], keyType: keyType)
      for certificate in leaf.chain { try Self.compare(certificate) }
    }
  }

  @Test(arguments: subjects)
  func everySubjectShape(_ subject: [TestNameAttribute]) throws {
    let root = try TestIdentity.selfSigned(TestCertificateSpec(subject: subject, isCA: true))
    try Self.compare(root.certificate)
    let leaf = try root.issue(TestCertificateSpec(subject: [.commonName("leaf")]))
    try Self.compare(leaf.certificate)
  }

  @Test func spkiMatchesTheOpenSSLCommandLinePipeline() async throws {
    for keyType: TestKeyType in [.p256, .rsa2048, .ed25519] {
      let certificate = try TestIdentity.root("CLI \(keyType)", keyType: keyType).certificate
      let pipeline = "openssl x509 -noout -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
      let output = try await runShell(pipeline, input: Data(certificate.pemEncoded.utf8))
      #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == certificate.spkiSHA256Base64)
    }
  }
}

/// Runs `command` with /bin/sh, feeding `input`, and returns standard output.
func runShell(_ command: String, input: Data) async throws -> String {
  let run = try await TestProcess.run("/bin/sh", ["-c", command], input: input)
  #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
  return String(decoding: run.stdout, as: UTF8.self)
}
#endif
