// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Test PKI")
struct TestPKITests {
  @Test(arguments: TestKeyType.allCases)
  func chainsOfEveryKeyTypeVerifyWithOpenSSL(_ keyType: TestKeyType) async throws {
    try await offTheSharedThreads {
      let root = try TestIdentity.root("Kit Root \(keyType)", keyType: keyType)
      let leaf = try root.issueIntermediate("Kit Intermediate", keyType: keyType)
        .issueLeaf("kit.example.com", dnsNames: ["kit.example.com"], ipAddresses: ["127.0.0.1"], keyType: keyType)
      #expect(leaf.chain.map(\.commonName) == ["kit.example.com", "Kit Intermediate", "Kit Root \(keyType)"])
      #expect(try OpenSSLChainVerifier(chain: leaf.chain, anchors: [root.certificate]).verify() == nil)
    }
  }

  @Test func anotherRootDoesNotVerify() throws {
    let leaf = try TestIdentity.root("Kit Root A").issueLeaf("a.example.com")
    let other = try TestIdentity.root("Kit Root A")  // same name, different key
    let reason = try OpenSSLChainVerifier(chain: leaf.chain, anchors: [other.certificate]).verify()
    #expect(reason != nil)
  }

  @Test func validityIsRelativeToNow() throws {
    let root = try TestIdentity.root("Kit Dates Root")
    let expired = try root.issue(TestCertificateSpec(subject: [.commonName("old")], notBefore: -2 * 86400, notAfter: -86400))
    #expect(expired.certificate.notValidAfter < Date())
    #expect(try OpenSSLChainVerifier(chain: expired.chain, anchors: [root.certificate]).verify() == "certificate has expired")
    let future = try root.issue(TestCertificateSpec(subject: [.commonName("new")], notBefore: 86400, notAfter: 2 * 86400))
    #expect(try OpenSSLChainVerifier(chain: future.chain, anchors: [root.certificate]).verify() == "certificate is not yet valid")
  }

  @Test func verbatimAttributesAreReSigned() throws {
    let root = try TestIdentity.root("Kit Verbatim Root")
    let leaf = try root.issue(TestCertificateSpec(subject: [.organization("O"), .verbatim(tag: 0x13, bytes: Array("R99".utf8))]))
    #expect(leaf.certificate.commonName == "R99")
    #expect(try OpenSSLChainVerifier(chain: leaf.chain, anchors: [root.certificate]).verify() == nil)
  }

  @Test func keysExportAsPEM() throws {
    let key = try TestPrivateKey.generate(.p256)
    #expect(try key.pemEncoded.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    #expect(try key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
    let certificate = try TestIdentity.selfSigned(TestCertificateSpec(subject: [.commonName("k")], key: key, isCA: true))
      .certificate
    #expect(certificate.subjectPublicKeyInfo == key.subjectPublicKeyInfo)
    #expect(try TestPrivateKey.shared(.p256, slot: 7) === TestPrivateKey.shared(.p256, slot: 7))
    #expect(try TestPrivateKey.shared(.p256, slot: 7) !== TestPrivateKey.shared(.p256, slot: 8))
  }
}
#endif
