// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import Foundation

/// What to put in a test certificate. Dates are relative to the moment it is issued.
public struct TestCertificateSpec: Sendable {
  /// The subject, in order. Empty makes a certificate without a subject CN.
  public var subject: [TestNameAttribute]
  /// The key to certify; nil generates a fresh one of `keyType` (or reuses a shared one, see
  /// `sharedKeySlot`). Fresh is the default so that two CAs never share a key by accident.
  public var key: TestPrivateKey?
  public var keyType: TestKeyType
  /// When set, the key is `TestPrivateKey.shared(keyType, slot:)` instead of a fresh one.
  public var sharedKeySlot: Int?
  /// A CA certificate (basicConstraints CA:TRUE, keyCertSign) or a server leaf (serverAuth).
  public var isCA: Bool
  public var dnsNames: [String]
  public var ipAddresses: [String]
  /// Offsets from now, in seconds.
  public var notBefore: TimeInterval
  public var notAfter: TimeInterval
  public var digest: TestDigest

  public init(
    subject: [TestNameAttribute], keyType: TestKeyType = .p256, key: TestPrivateKey? = nil,
    sharedKeySlot: Int? = nil, isCA: Bool = false, dnsNames: [String] = [], ipAddresses: [String] = [],
    notBefore: TimeInterval = -3600, notAfter: TimeInterval = 30 * 86400, digest: TestDigest = .sha256
  ) {
    self.subject = subject
    self.keyType = keyType
    self.key = key
    self.sharedKeySlot = sharedKeySlot
    self.isCA = isCA
    self.dnsNames = dnsNames
    self.ipAddresses = ipAddresses
    self.notBefore = notBefore
    self.notAfter = notAfter
    self.digest = digest
  }

  /// A CA certificate whose subject is just `commonName`.
  public static func ca(_ commonName: String, keyType: TestKeyType = .p256) -> TestCertificateSpec {
    TestCertificateSpec(subject: [.commonName(commonName)], keyType: keyType, isCA: true)
  }

  /// A server certificate for `commonName`, with DNS and IP names for the subjectAltName.
  public static func leaf(
    _ commonName: String, dnsNames: [String] = [], ipAddresses: [String] = [], keyType: TestKeyType = .p256
  ) -> TestCertificateSpec {
    TestCertificateSpec(
      subject: [.commonName(commonName)], keyType: keyType, dnsNames: dnsNames, ipAddresses: ipAddresses)
  }
}
#endif
