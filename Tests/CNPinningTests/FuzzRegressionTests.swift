// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Every input a fuzz target crashed on (Fuzz/Regressions/<target>/), replayed with the same
/// invariants the target checks.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions")

  static func inputs(_ target: String) -> [String] {
    let folder = directory.appendingPathComponent(target)
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted().map {
      folder.appendingPathComponent($0).path
    }
  }

  @Test func regressionInputsExist() {
    #expect(!Self.inputs("FuzzCertificate").isEmpty)
    #expect(!Self.inputs("FuzzConfiguration").isEmpty)
  }

  @Test(arguments: inputs("FuzzCertificate"))
  func certificates(_ path: String) throws {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    guard let certificate = try? CNCertificate(derEncoded: bytes), let reference = try? OpenSSLReference.read(bytes) else {
      return
    }
    #expect(certificate.spkiSHA256Base64 == reference.spkiSHA256Base64)
    #expect(certificate.subjectCommonNameValues.count == reference.subjectCommonNames.count)
  }

  @Test func aNegativeRSAExponentIsRefused() throws {
    let bytes = [UInt8](try Data(contentsOf: Self.directory.appendingPathComponent("FuzzCertificate/negative-rsa-exponent.der")))
    #expect(
      throws: CNCertificateError.invalidContent(
        field: "RSAPublicKey.publicExponent", reason: "is not a positive, minimally encoded integer")
    ) {
      try CNCertificate(derEncoded: bytes)
    }
  }

  @Test(arguments: inputs("FuzzConfiguration"))
  func configurations(_ path: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let loaded = Result { try CNPinningDocument(data: data) }
    guard case .success(let document) = loaded else {
      #expect(throws: CNConfigurationError.self, "\(path)") { try loaded.get() }
      return
    }
    // A document that loads must load again, unchanged, from what the writers make of it: the
    // same entries, and no warning it did not have (the writers spell out defaults).
    for format in CNPinningDocument.Format.allCases {
      let again = try CNPinningDocument(data: document.encoded(as: format))
      #expect(again.entries == document.entries, "\(path) as \(format)")
      #expect(again.warnings.allSatisfy(document.warnings.contains), "\(path) as \(format)")
    }
  }

  @Test func strictCommonNameValuesMarkUndecodableNames() throws {
    let odd = try TestIdentity.selfSigned(
      TestCertificateSpec(subject: [.verbatim(tag: 0x08, bytes: Array("R11".utf8))], isCA: true))
    let leaf = try odd.issueLeaf("api.test")
    #expect(leaf.certificate.issuerCommonNameValues == [nil])
    #expect(leaf.certificate.issuerCommonNames == ["R11"])  // shown lossily, never matched
    #expect(odd.certificate.commonName == nil)
  }
}
#endif
