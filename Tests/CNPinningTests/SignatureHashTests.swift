import Testing

@testable import CNPinning

/// The hash read from a certificate's AlgorithmIdentifier, in particular RSASSA-PSS parameters
/// (RFC 4055), which name the hash inside the parameters and default to SHA-1.
@Suite("Signature hash")
struct SignatureHashTests {
  static let pssOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]
  /// [0] { SEQUENCE { OID sha256 } }
  static let sha256Hash: [UInt8] = [0xA0, 0x0D, 0x30, 0x0B, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]

  @Test func plainAlgorithmsAreReadFromTheirOID() {
    let sha256WithRSA: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B, 0x05, 0x00]
    #expect(CNSignatureHash(algorithmIdentifier: sha256WithRSA) == .sha256)
    let ecdsaWithSHA1: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x01]
    #expect(CNSignatureHash(algorithmIdentifier: ecdsaWithSHA1) == .sha1)
  }

  /// DSA signatures are named as the forbidden algorithm they are, not as an unknown one.
  @Test func dsaIsNamedAndNeverStrong() {
    let dsaWithSHA256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x02]
    #expect(CNSignatureHash(algorithmIdentifier: dsaWithSHA256) == .forbidden("DSA with SHA-256"))
    #expect(!CNSignatureHash.forbidden("DSA with SHA-256").isSHA256OrStronger)
    #expect(CNSignatureHash(algorithmIdentifier: dsaWithSHA256).description == "DSA with SHA-256, a forbidden algorithm")
    let dsaWithSHA1: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x03]
    #expect(CNSignatureHash(algorithmIdentifier: dsaWithSHA1) == .forbidden("DSA with SHA-1"))
  }

  @Test func pssHashComesFromTheParameters() {
    let parameters: [UInt8] = [0x30, UInt8(Self.sha256Hash.count)] + Self.sha256Hash
    #expect(CNSignatureHash(algorithmIdentifier: Self.pssOID + parameters) == .sha256)
  }

  @Test func pssWithoutAHashDefaultsToSHA1() {
    #expect(CNSignatureHash(algorithmIdentifier: Self.pssOID) == .sha1)
    #expect(CNSignatureHash(algorithmIdentifier: Self.pssOID + [0x30, 0x00]) == .sha1)
  }

  @Test func malformedPSSParametersNameNoHash() {
    // NULL where the parameters SEQUENCE belongs, and a [0] whose length runs past the end.
    let hash = CNSignatureHash(algorithmIdentifier: Self.pssOID + [0x05, 0x00])
    #expect(hash == .unknown("PSS"))
    #expect(!hash.isSHA256OrStronger)
    #expect(CNSignatureHash(algorithmIdentifier: Self.pssOID + [0x30, 0x02, 0xA0, 0x05]) == .unknown("PSS"))
  }
}
