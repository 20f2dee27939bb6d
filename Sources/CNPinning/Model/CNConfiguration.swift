import Foundation

/// The pins for one configured domain, and how they are enforced.
///
/// A host may declare CN chains, SPKI pins and certificate pins. Every kind it declares must be
/// satisfied; within a kind, one match is enough.
public struct CNConfiguration: Sendable, Equatable {
  /// Whether hosts below this domain (on a label boundary) use this configuration when they have
  /// no configuration of their own.
  public let includesSubdomains: Bool
  /// The accepted CN chains (written root → leaf); any one matching the verified chain is enough.
  public let chains: [CNChain]
  /// SPKI pins; when present, one must match a certificate in its scope.
  public let spkiPins: [CNSPKIPin]
  /// Certificate pins; when present, one must match a certificate in its scope.
  public let certificatePins: [CNCertificatePin]
  /// After this moment the host is treated as unpinned (reported once), so that an app that is
  /// not updated cannot lock its users out forever.
  public let expirationDate: Date?
  /// When false the pins are evaluated and failures reported, but connections go through.
  public let enforce: Bool
  /// Where failure reports are POSTed as JSON; nil sends none.
  public let reportURI: URL?

  /// Creates a CN-chain configuration. Throws ``CNConfigurationError/Problem/noChainsDefined`` for an empty chain
  /// set and `CNConfigurationError.Problem.duplicateChain(index)` for a chain that repeats an earlier one.
  public init(includesSubdomains: Bool = false, _ chains: [CNChain]) throws(CNConfigurationError) {
    guard !chains.isEmpty else { throw CNConfigurationError(.noChainsDefined) }
    try self.init(includesSubdomains: includesSubdomains, chains: chains)
  }

  /// Creates a configuration with any pin kinds. Throws ``CNConfigurationError`` for no pins at all,
  /// repeated chains or pins, and — unless `allowsSingleHashPin` is set — for a host pinned only
  /// by hash pins with fewer than two of them (no backup).
  public init(
    includesSubdomains: Bool = false, chains: [CNChain] = [], spkiPins: [CNSPKIPin] = [],
    certificatePins: [CNCertificatePin] = [], expirationDate: Date? = nil, enforce: Bool = true, reportURI: URL? = nil,
    allowsSingleHashPin: Bool = false
  ) throws(CNConfigurationError) {
    guard !chains.isEmpty || !spkiPins.isEmpty || !certificatePins.isEmpty else { throw CNConfigurationError(.noPinsDefined) }
    if let index = Self.firstRepeat(chains) { throw CNConfigurationError(.duplicateChain(index)) }
    if let index = Self.firstRepeat(spkiPins) ?? Self.firstRepeat(certificatePins) {
      throw CNConfigurationError(.duplicatePin(index))
    }
    if chains.isEmpty && spkiPins.count + certificatePins.count < 2 && !allowsSingleHashPin {
      throw CNConfigurationError(.noBackupPin)
    }
    if let expirationDate, !ISO8601.validRange.contains(expirationDate.timeIntervalSince1970) {
      throw CNConfigurationError(.invalidValue("\(expirationDate)", reason: "is not a date between the years 1 and 9999"))
    }
    if let reportURI, reportURI.scheme?.lowercased() != "https" || reportURI.host == nil {
      throw CNConfigurationError(.invalidValue(reportURI.absoluteString, reason: "is not an https URL"))
    }
    self.includesSubdomains = includesSubdomains
    self.chains = chains
    self.spkiPins = spkiPins
    self.certificatePins = certificatePins
    self.expirationDate = expirationDate
    self.enforce = enforce
    self.reportURI = reportURI
  }

  private static func firstRepeat<Element: Hashable>(_ elements: [Element]) -> Int? {
    var seen = Set<Element>()
    return elements.indices.first { !seen.insert(elements[$0]).inserted }
  }
}
