import Foundation

/// What a pin failure (enforced or report-only), or the expiry of a host's pins, looked like:
/// delivered to the app's handler, whole. What is POSTed to the configuration's `reportURI` is
/// its ``CNPinningReportUpload``, minimal unless the app opts in. Both schemas are in docs/REPORTS.md.
public struct CNPinningFailureReport: Codable, Sendable, Hashable {
  /// What happened.
  public enum Kind: String, Codable, Sendable {
    /// The verified chain did not satisfy the pins.
    case pinFailure = "pin-failure"
    /// The host's pins passed their `expirationDate`; the host is now treated as unpinned.
    case pinsExpired = "pins-expired"
  }

  /// One certificate of the verified chain.
  public struct Certificate: Codable, Sendable, Hashable {
    /// The subject CN, when it has a usable one.
    public let commonName: String?
    /// Base64 of the SHA-256 of the public key.
    public let spkiSHA256: String
    /// Base64 of the SHA-256 of the DER certificate.
    public let certificateSHA256: String
  }

  /// The configuration that applied, as in the configuration file.
  public struct Configuration: Codable, Sendable, Hashable {
    /// The configured domain that applied to the host.
    public let domain: String
    /// Whether the domain's pins cover its subdomains.
    public let includesSubdomains: Bool
    /// The accepted CN chains, each root → leaf.
    public let chainSet: [[CNChainLink]]
    /// The SPKI pins, as base64 digests.
    public let spkiPins: [String]
    /// The certificate pins, as base64 digests.
    public let certificatePins: [String]
    /// When the pins stop applying, if they do.
    public let expirationDate: Date?
    /// Whether failures refuse connections (false: report-only).
    public let enforce: Bool
  }

  /// The schema version (1).
  public var version = 1
  /// What happened.
  public let kind: Kind
  /// When it happened.
  public let time: Date
  /// The host that was connected to.
  public let host: String
  /// Its port.
  public let port: Int
  /// The pins that applied.
  public let configuration: Configuration
  /// The verified chain, root → leaf (empty for `pinsExpired`).
  public let verifiedChain: [Certificate]
  /// The rule that failed: `chainSet`, `spkiPins`, `certificatePins` or `expirationDate`.
  public let failedRule: String
  /// The failure in words.
  public let reason: String
  /// Whether the connection was refused (false for report-only configurations and expiry).
  public let enforced: Bool

  init(failure: CNPinningFailure, port: Int, time: Date, chain: [CNCertificate]) {
    kind = .pinFailure
    self.time = time
    host = failure.host
    self.port = port
    configuration = Configuration(domain: failure.domain ?? failure.host, failure.configuration)
    verifiedChain = CertificateChain(leafFirst: chain).rootFirst.map {
      Certificate(
        commonName: $0.commonName, spkiSHA256: $0.spkiSHA256Base64, certificateSHA256: Data($0.sha256).base64EncodedString())
    }
    failedRule = failure.reason.rule
    reason = failure.description
    enforced = failure.configuration?.enforce ?? true
  }

  init(expiredHost host: String, port: Int, domain: String, configuration: CNConfiguration, time: Date) {
    kind = .pinsExpired
    self.time = time
    self.host = host
    self.port = port
    self.configuration = Configuration(domain: domain, configuration)
    verifiedChain = []
    failedRule = "expirationDate"
    let formatted = configuration.expirationDate.map { ISO8601.string(from: $0) } ?? "?"
    reason = "the pins of \(domain) expired at \(formatted); \(host) is treated as unpinned"
    enforced = false
  }

  /// The report without its time, for recognising identical reports.
  var identity: String {
    "\(kind.rawValue)|\(host)|\(port)|\(failedRule)|\(enforced)|\(reason)|"
      + verifiedChain.map(\.certificateSHA256).joined(separator: ",")
  }

  /// The report as JSON, keys sorted, dates in ISO 8601.
  public func jsonData() -> Data { ReportJSON().encode(self) }
}

extension CNPinningFailureReport.Configuration {
  init(domain: String, _ configuration: CNConfiguration?) {
    self.domain = domain
    includesSubdomains = configuration?.includesSubdomains ?? false
    chainSet = configuration?.chains.map(\.links) ?? []
    spkiPins = configuration?.spkiPins.map { "\($0.sha256Base64) (\($0.scope.rawValue))" } ?? []
    certificatePins = configuration?.certificatePins.map { "\($0.sha256Base64) (\($0.scope.rawValue))" } ?? []
    expirationDate = configuration?.expirationDate
    enforce = configuration?.enforce ?? true
  }
}
