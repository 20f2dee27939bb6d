/// The names the programs that read `cnpin convert`'s output use, recorded from their sources
/// (issue 65, item 3): written by `PinExportWriter`, read back by `ExportedPins`. Tests hold their
/// own copies of the same names, recorded from the same sources, so that a name changed here
/// fails them.

/// TrustKit 3.0.0 (datatheorem/TrustKit, commit c48790f306234926d66ed1eb04acf0c23b3df5a1, MIT):
/// the values of the `kTSK…` constants in `TrustKit/TSKTrustKitConfig.m`, which
/// `parseTrustKitConfiguration` (`TrustKit/parse_configuration.m`) reads. The constants' names
/// are not the keys: `kTSKPinnedDomains` is the string `TSKPinnedDomains`.
enum TrustKitNames {
  static let infoPlistKey = "TSKConfiguration"
  static let swizzleNetworkDelegates = "TSKSwizzleNetworkDelegates"
  static let pinnedDomains = "TSKPinnedDomains"
  /// macOS only; TrustKit's default is YES (pins skipped for user-installed anchors).
  static let ignorePinningForUserDefinedTrustAnchors = "TSKIgnorePinningForUserDefinedTrustAnchors"
  static let publicKeyHashes = "TSKPublicKeyHashes"
  static let enforcePinning = "TSKEnforcePinning"
  /// The constant `kTSKExcludeSubdomainFromParentPolicy` is this string, without the `T`.
  static let excludeSubdomainFromParentPolicy = "kSKExcludeSubdomainFromParentPolicy"
  static let includeSubdomains = "TSKIncludeSubdomains"
  /// Deprecated since TrustKit 1.6.0 and ignored.
  static let publicKeyAlgorithms = "TSKPublicKeyAlgorithms"
  static let reportUris = "TSKReportUris"
  /// Without it set to YES, reports also go to TrustKit's own collector.
  static let disableDefaultReportUri = "TSKDisableDefaultReportUri"
  /// `yyyy-MM-dd`, in UTC.
  static let expirationDate = "TSKExpirationDate"

  /// The global keys cnpin writes and reads.
  static let global: Set<String> = [swizzleNetworkDelegates, pinnedDomains, ignorePinningForUserDefinedTrustAnchors]
  /// The domain keys cnpin writes and reads; any other bears on pinning in a way cnpin does not model.
  static let domain: Set<String> = [
    publicKeyHashes, enforcePinning, includeSubdomains, reportUris, disableDefaultReportUri, expirationDate,
  ]
}

/// Android's Network Security Config as AOSP reads it: `XmlConfigSource.java`
/// (aosp-mirror/platform_frameworks_base, `core/java/android/security/net/config/`, commit
/// 0172a23b1af4735bcca3580bc53e37f57a639c7a, Apache-2.0). Android skips an element it does not
/// know without a word.
enum NetworkSecurityConfigNames {
  static let root = "network-security-config"
  static let baseConfig = "base-config"
  static let domainConfig = "domain-config"
  static let debugOverrides = "debug-overrides"
  static let domain = "domain"
  static let includeSubdomains = "includeSubdomains"
  static let pinSet = "pin-set"
  /// `yyyy-MM-dd`, parsed strictly.
  static let expiration = "expiration"
  static let pin = "pin"
  static let digest = "digest"
  /// The one digest Android supports.
  static let sha256 = "SHA-256"
  static let trustAnchors = "trust-anchors"
  static let certificates = "certificates"
  static let overridePins = "overridePins"
}

/// Apple's `NSPinnedDomains` (developer.apple.com, Bundle Resources › Information Property List ›
/// NSAppTransportSecurity › NSPinnedDomains, NSPinnedCAIdentities, NSPinnedLeafIdentities,
/// NSIncludesSubdomains).
enum NSPinnedDomainsNames {
  static let appTransportSecurity = "NSAppTransportSecurity"
  static let pinnedDomains = "NSPinnedDomains"
  static let includesSubdomains = "NSIncludesSubdomains"
  static let caIdentities = "NSPinnedCAIdentities"
  static let leafIdentities = "NSPinnedLeafIdentities"
  static let spki = "SPKI-SHA256-BASE64"
}
