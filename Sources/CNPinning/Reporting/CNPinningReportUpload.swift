import Foundation

/// What a failure report's upload to a `reportURI` carries (schema version 2, docs/REPORTS.md):
/// by default a minimal record — the host, the rule that failed, the time, and for each
/// certificate of the verified chain whether the configuration names it — so that the collector
/// receives nothing that identifies the user. Behind a corporate proxy, an antivirus or state
/// interception, the names of an unexpected chain identify the employer or the software on the
/// device: with `.minimal` they travel only as SHA-256 digests; `.full` (an app's opt-in) sends
/// them, the keys, the reason and the configuration. Every upload also says which app version,
/// CNPinning version, pins (a digest of the configuration that applied) and platform reported,
/// which is what tells a CA switch from an interception proxy.
///
/// The app's own handler always receives the whole ``CNPinningFailureReport``; this is what leaves
/// the device.
public struct CNPinningReportUpload: Codable, Sendable, Hashable {
  /// How much of a report leaves the device.
  public enum Content: String, Codable, Sendable, CaseIterable {
    /// Host, port, rule, time, enforcement, and per certificate whether the configuration names
    /// it: the CN of a certificate the configuration names, a SHA-256 of any other CN. The default.
    case minimal
    /// Everything the app's handler receives: names, keys and certificate digests of the whole
    /// verified chain, the reason in words, the configuration that applied.
    case full
  }

  /// One certificate of the verified chain, root → leaf.
  public struct Certificate: Codable, Sendable, Hashable {
    /// Whether the configuration names this certificate: its CN satisfies one of the chains'
    /// links (the leaf also when its CN is the host), or its key is an SPKI pin.
    public let configured: Bool
    /// The subject CN: for a configured certificate always, for another only with `.full`.
    public let commonName: String?
    /// With `.minimal`, for a certificate the configuration does not name: base64 of the
    /// SHA-256 of its CN's UTF-8 bytes. A collector can tell two reports of one unexpected CA
    /// apart from two of different ones; a well-known name can still be looked up by its digest.
    public let commonNameSHA256: String?
    /// With `.full`: base64 of the SHA-256 of the public key.
    public let spkiSHA256: String?
    /// With `.full`: base64 of the SHA-256 of the DER certificate.
    public let certificateSHA256: String?
  }

  /// The schema version (2).
  public var version = 2
  /// How much the upload carries.
  public let content: Content
  /// What happened.
  public let kind: CNPinningFailureReport.Kind
  /// When it happened.
  public let time: Date
  /// The host that was connected to.
  public let host: String
  /// Its port.
  public let port: Int
  /// The configured domain whose pins applied.
  public let domain: String
  /// `chainSet`, `spkiPins`, `certificatePins`, `chain` or `expirationDate`.
  public let failedRule: String
  /// Whether the connection was refused.
  public let enforced: Bool
  /// Base64 of the SHA-256 of the configuration that applied (its JSON, keys sorted): which
  /// pins the reporting app had, without sending them.
  public let pinsDigest: String
  /// The app's version (`CFBundleShortVersionString`, or what the app gave the reporter).
  public let appVersion: String?
  /// CNPinning's version.
  public let libraryVersion: String
  /// `iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS` or `Linux`.
  public let platform: String
  /// The verified chain, root → leaf (empty for `pinsExpired`).
  public let verifiedChain: [Certificate]
  /// With `.full`: the failure in words (it names the chain's certificates).
  public let reason: String?
  /// With `.full`: the configuration that applied.
  public let configuration: CNPinningFailureReport.Configuration?

  /// The upload of `report` with `content`, from an app of ``appVersion``.
  public init(_ report: CNPinningFailureReport, content: Content, appVersion: String?) {
    self.content = content
    kind = report.kind
    time = report.time
    host = report.host
    port = report.port
    domain = report.configuration.domain
    failedRule = report.failedRule
    enforced = report.enforced
    pinsDigest = Self.digest(Data(Self.encoder.encode(report.configuration)))
    self.appVersion = appVersion
    libraryVersion = CNPinningVersion.current
    platform = Self.platform
    let links = report.configuration.chainSet.flatMap { $0 }.filter(\.type.comparesCommonName)
    let keys = Set(report.configuration.spkiPins.map { String($0.prefix { $0 != " " }) })
    let leafIndex = report.verifiedChain.count - 1
    verifiedChain = report.verifiedChain.enumerated().map { index, certificate in
      let name = certificate.commonName
      let configured =
        keys.contains(certificate.spkiSHA256)
        || name.map { name in
          links.contains { $0.matches(commonName: name) } || (index == leafIndex && name.lowercased() == report.host)
        } ?? false
      let full = content == .full
      return Certificate(
        configured: configured, commonName: configured || full ? name : nil,
        commonNameSHA256: configured || full ? nil : name.map { Self.digest(Data($0.utf8)) },
        spkiSHA256: full ? certificate.spkiSHA256 : nil, certificateSHA256: full ? certificate.certificateSHA256 : nil)
    }
    reason = content == .full ? report.reason : nil
    configuration = content == .full ? report.configuration : nil
  }

  /// The upload as JSON, keys sorted, dates in ISO 8601: the body POSTed to the `reportURI`.
  public func jsonData() -> Data { Self.encoder.encode(self) }

  private static let encoder = ReportJSON()

  private static func digest(_ data: Data) -> String {
    Data(data.withUnsafeBytes { SHA256Digest.hash($0) }).base64EncodedString()
  }

  private static var platform: String {
    #if os(iOS)
    return "iOS"
    #elseif os(macOS)
    return "macOS"
    #elseif os(tvOS)
    return "tvOS"
    #elseif os(watchOS)
    return "watchOS"
    #elseif os(visionOS)
    return "visionOS"
    #else
    return "Linux"
    #endif
  }
}

/// Reports' JSON: keys sorted, slashes as they are, dates in ISO 8601.
struct ReportJSON: Sendable {
  func encode(_ value: some Encodable) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return (try? encoder.encode(value)) ?? Data("{}".utf8)
  }
}
