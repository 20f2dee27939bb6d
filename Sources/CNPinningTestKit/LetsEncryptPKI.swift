// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation

/// Let's Encrypt's hierarchies with their real names and shapes, made in code (new keys, dates
/// relative to now), for tests of pins against the chains a client verifies in 2026.
///
/// Generation X: `ISRG Root X1` (RSA) and `ISRG Root X2` (ECDSA, also cross-signed by X1), with
/// the intermediates `R10`–`R14` and `E5`–`E9`. Generation Y, generated in September 2025 and
/// issuing server certificates since May 2026: `Root YR` (RSA) and `Root YE` (ECDSA), subject
/// `O = ISRG`, each self-signed and cross-signed by its Generation X counterpart with the same
/// key, and the intermediates `YR1`–`YR3` and `YE1`–`YE3` (letsencrypt.org, "Chains of Trust",
/// and the announcement of 2025-11-24). A server sends its leaf, the intermediate and the
/// cross-signed Generation Y root: a client that trusts only the Generation X roots verifies four
/// certificates (`ISRG Root X1` → `Root YR` → `YR2` → leaf), one that trusts `Root YR` three.
///
/// Keys are P-256 and RSA-2048 from the test kit's shared slots, whatever the real key sizes:
/// the names and the shape are what pins see.
public struct LetsEncryptPKI: Sendable {
  public let rootX1: TestIdentity
  public let rootX2: TestIdentity
  /// ISRG Root X2 signed by ISRG Root X1 (re-issued 2026-05-13), with X2's key and name: what a
  /// server sends above Root YE so that a store trusting only X1 verifies the ECDSA chain.
  public let rootX2CrossSigned: TestIdentity
  /// Root YR, self-signed: the anchor once a trust store carries it.
  public let rootYR: TestIdentity
  /// Root YR signed by ISRG Root X1, with Root YR's key and name.
  public let rootYRCrossSigned: TestIdentity
  public let rootYE: TestIdentity
  /// Root YE signed by ISRG Root X2.
  public let rootYECrossSigned: TestIdentity
  /// A Generation X intermediate, for the chains Let's Encrypt served until May 2026.
  public let r11: TestIdentity
  public let e5: TestIdentity
  /// Generation Y intermediates, issued by the self-signed Generation Y roots (and so verified
  /// by either certificate of their root).
  public let yr2: TestIdentity
  public let ye1: TestIdentity

  public init() throws {
    let rsa = try TestPrivateKey.shared(.rsa2048, slot: 70)
    let ecdsa = try TestPrivateKey.shared(.p256, slot: 71)
    rootX1 = try .selfSigned(Self.ca("ISRG Root X1", organization: "Internet Security Research Group", key: rsa))
    rootX2 = try .selfSigned(Self.ca("ISRG Root X2", organization: "Internet Security Research Group", key: ecdsa))
    rootX2CrossSigned = try rootX1.issue(
      Self.ca("ISRG Root X2", organization: "Internet Security Research Group", key: ecdsa))
    let rootYRKey = try TestPrivateKey.shared(.rsa2048, slot: 72)
    let rootYEKey = try TestPrivateKey.shared(.p256, slot: 73)
    rootYR = try .selfSigned(Self.ca("Root YR", organization: "ISRG", key: rootYRKey))
    rootYRCrossSigned = try rootX1.issue(Self.ca("Root YR", organization: "ISRG", key: rootYRKey))
    rootYE = try .selfSigned(Self.ca("Root YE", organization: "ISRG", key: rootYEKey))
    rootYECrossSigned = try rootX2.issue(Self.ca("Root YE", organization: "ISRG", key: rootYEKey))
    r11 = try rootX1.issue(Self.ca("R11", organization: "Let's Encrypt", key: try .shared(.rsa2048, slot: 74)))
    e5 = try rootX2.issue(Self.ca("E5", organization: "Let's Encrypt", key: try .shared(.p256, slot: 75)))
    yr2 = try rootYR.issue(Self.ca("YR2", organization: "Let's Encrypt", key: try .shared(.rsa2048, slot: 76)))
    ye1 = try rootYE.issue(Self.ca("YE1", organization: "Let's Encrypt", key: try .shared(.p256, slot: 77)))
  }

  /// Which of Let's Encrypt's chains a server sends.
  public enum Issuance: Sendable, CaseIterable {
    /// Generation X, RSA: leaf ← R11 ← ISRG Root X1 (until May 2026).
    case generationXRSA
    /// Generation X, ECDSA: leaf ← E5 ← ISRG Root X2.
    case generationXECDSA
    /// Generation Y, RSA: leaf ← YR2 ← Root YR (cross-signed by ISRG Root X1).
    case generationYRSA
    /// Generation Y, ECDSA, the default chain: leaf ← YE1 ← Root YE (cross-signed by ISRG Root
    /// X2) ← ISRG Root X2 (cross-signed by ISRG Root X1).
    case generationYECDSA
  }

  /// The shape of a leaf's subject, by ACME profile (letsencrypt.org, "Profiles", 2026-07-14).
  public enum LeafProfile: Sendable, CaseIterable {
    /// `classic`: the first SAN copied into the CN, or no CN when it has 64 characters or more.
    case classic
    /// `tlsserver` (45 days since 2026-05-13): an empty subject, the names only in the
    /// subjectAltName, which is critical (RFC 5280 4.2.1.6).
    case tlsServer
    /// `shortlived` (160 hours, the only profile with IP-address certificates): as `tlsServer`.
    case shortLived
  }

  /// The trust stores of 2026 for Let's Encrypt's roots.
  public enum Store: Sendable, CaseIterable {
    /// ISRG Root X1 only: iOS before 16, Android before 14, Debian before 12.
    case rootX1Only
    /// ISRG Root X1 and X2: iOS 16 and later, Android 14 and later, Debian 12 and later.
    case generationX
    /// With Root YR and Root YE added, as no store has them yet.
    case generationY
  }

  /// A server certificate for `host` as Let's Encrypt issues it under `profile`, and the
  /// certificates a server sends after it. A host that is an IP address gets an IP entry only.
  public func server(_ host: String, _ issuance: Issuance, profile: LeafProfile = .classic) throws -> (
    identity: TestIdentity, chain: [CNCertificate]
  ) {
    let (issuer, above): (TestIdentity, [CNCertificate]) =
      switch issuance {
      case .generationXRSA: (r11, [r11.certificate])
      case .generationXECDSA: (e5, [e5.certificate])
      case .generationYRSA: (yr2, [yr2.certificate, rootYRCrossSigned.certificate])
      case .generationYECDSA: (ye1, [ye1.certificate, rootYECrossSigned.certificate, rootX2CrossSigned.certificate])
      }
    let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    var spec = TestCertificateSpec.leaf(
      host, dnsNames: isAddress ? [] : [host], ipAddresses: isAddress ? [host] : ["127.0.0.1", "::1"])
    if profile != .classic || host.utf8.count >= 64 { spec.subject = [] }
    return (try issuer.issue(spec), above)
  }

  /// The trust stores of 2026: the Generation X roots only, or with the Generation Y roots added.
  public func anchors(includingGenerationY: Bool) -> [CNCertificate] {
    anchors(includingGenerationY ? .generationY : .generationX)
  }

  /// The roots `store` holds.
  public func anchors(_ store: Store) -> [CNCertificate] {
    switch store {
    case .rootX1Only: [rootX1.certificate]
    case .generationX: [rootX1.certificate, rootX2.certificate]
    case .generationY: [rootX1.certificate, rootX2.certificate, rootYR.certificate, rootYE.certificate]
    }
  }

  private static func ca(_ commonName: String, organization: String, key: TestPrivateKey) -> TestCertificateSpec {
    var spec = TestCertificateSpec.ca(commonName)
    spec.subject = [.country("US"), .organization(organization), .commonName(commonName)]
    spec.key = key
    spec.keyType = key.type
    return spec
  }
}
#endif
