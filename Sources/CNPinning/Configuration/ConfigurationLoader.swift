import Foundation

/// Turns a configuration document into validated per-host configurations, collecting every
/// problem with the path of the element at fault. Hosts are visited in sorted order, so the
/// problems come in the same order on every run.
struct ConfigurationLoader {
  /// A configured host as written, with its normalised name and its pins.
  struct Domain {
    let key: String
    let host: HostName
    let configuration: CNConfiguration
    /// Read from `NSAppTransportSecurity` › `NSPinnedDomains` (and written back there).
    var isAppTransportSecurity = false
  }

  var domains: [Domain] = []
  private(set) var problems: [CNConfigurationError.Problem] = []
  var warnings: [CNConfigurationWarning] = []
  /// Whether a link had the `mayBeAnchor` key (which the reader of CNPinning 0.1.0 refuses), whatever its value.
  var readsMayBeAnchor = false
  private var keysByHost: [HostName: String] = [:]

  static let managerKeys = ["PinnedDomains"]
  static let hostKeys = [
    "includesSubdomains", "chainSet", "spkiPins", "certificatePins", "expirationDate", "enforce", "reportURI",
  ]
  static let pinKeys = ["sha256", "appliesTo", "file"]
  /// Where certificate files named by relative paths are looked for.
  var baseDirectory: URL?
  static let linkKeys = ["type", "value", "mayBeAnchor"]

  /// Loads the ``CNPinningManager`` dictionary, or a whole Info.plist that contains one.
  init(document: ConfigValue, baseDirectory: URL? = nil) {
    self.baseDirectory = baseDirectory
    guard self.members(of: document, at: "", expected: "a dictionary at the top level") != nil else { return }
    let appTransportSecurity = document["NSAppTransportSecurity"]?["NSPinnedDomains"]
    if let manager = document["CNPinningManager"] {
      guard self.members(of: manager, at: "CNPinningManager") != nil else { return }
      loadManager(manager)
    } else if document["PinnedDomains"] != nil {
      loadManager(document)
    } else if appTransportSecurity == nil {
      fail("", .missingValue("CNPinningManager"))
    }
    if let appTransportSecurity { loadPinnedDomains(appTransportSecurity) }
  }

  /// An empty loader, for reading the parts of other documents (enterprise policies) that share
  /// this format.
  init() {}

  /// Validates configurations given in code, keyed by host name.
  init(configurations: [String: CNConfiguration]) {
    guard !configurations.isEmpty else {
      fail("configuration", .noPinnedDomains)
      return
    }
    for (key, configuration) in configurations.sorted(by: { $0.key < $1.key }) {
      let path = ConfigPath("configuration").entry(key)
      if let host = validatedHost(key, path: path) {
        addDomain(key: key, host: host, path: path, configuration: configuration)
      }
    }
  }

  private mutating func loadManager(_ manager: ConfigValue) {
    guard case .dictionary(let entries) = manager else { return }
    for (key, _) in entries where !Self.managerKeys.contains(key) {
      fail(ConfigPath(key), .unknownKey(key, suggestion: Suggestion.closest(to: key, among: Self.managerKeys)))
    }
    guard let pinned = manager["PinnedDomains"] else {
      fail("", .missingValue("PinnedDomains"))
      return
    }
    guard var hosts = self.members(of: pinned, at: "PinnedDomains", expected: "a dictionary of hosts") else { return }
    guard !hosts.isEmpty else {
      fail("PinnedDomains", .noPinnedDomains)
      return
    }
    hosts.sort { $0.key < $1.key }
    for (key, value) in hosts {
      let path = ConfigPath("PinnedDomains").entry(key)
      let host = validatedHost(key, path: path)
      if let configuration = loadHost(value, path: path), let host {
        addDomain(key: key, host: host, path: path, configuration: configuration)
      }
    }
  }

  mutating func validatedHost(_ key: String, path: ConfigPath) -> HostName? {
    switch HostName.parse(key) {
    case .failure(let invalid):
      fail(path, .invalidHost(key, reason: invalid.reason))
      return nil
    case .success(let host):
      return host
    }
  }

  mutating func addDomain(
    key: String, host: HostName, path: ConfigPath, configuration: CNConfiguration, isAppTransportSecurity: Bool = false
  ) {
    if let earlier = keysByHost[host] {
      fail(path, .duplicateHost(key, sameAs: earlier))
    } else {
      keysByHost[host] = key
      domains.append(
        Domain(key: key, host: host, configuration: configuration, isAppTransportSecurity: isAppTransportSecurity))
    }
  }

  mutating func loadHost(_ value: ConfigValue, path: ConfigPath) -> CNConfiguration? {
    guard let entries = self.members(of: value, at: path) else { return nil }
    let problemsBefore = problems.count
    for (key, _) in entries where !Self.hostKeys.contains(key) {
      fail(path.member(key), .unknownKey(key, suggestion: Suggestion.closest(to: key, among: Self.hostKeys)))
    }
    var includesSubdomains = false
    if let flag = value["includesSubdomains"] {
      includesSubdomains = loadBool(flag, path: path.member("includesSubdomains")) ?? false
    } else {
      fail(path.member("includesSubdomains"), .missingValue("includesSubdomains"))
    }
    let chains = value["chainSet"].flatMap { loadChainSet($0, path: path.member("chainSet")) } ?? []
    let spkiPins =
      value["spkiPins"].flatMap {
        loadPins($0, path: path.member("spkiPins"), make: CNSPKIPin.init(sha256Base64:scope:), fromCertificate: nil)
      } ?? []
    let certificatePins =
      value["certificatePins"].flatMap {
        loadPins(
          $0, path: path.member("certificatePins"), make: CNCertificatePin.init(sha256Base64:scope:),
          fromCertificate: CNCertificatePin.init(certificate:scope:file:))
      } ?? []
    let expirationDate = value["expirationDate"].flatMap { loadDate($0, path: path.member("expirationDate")) }
    let enforce = value["enforce"].map { loadBool($0, path: path.member("enforce")) ?? true } ?? true
    var reportURI: URL?
    if let text = value["reportURI"] {
      if case .string(let string) = text, let url = URL(string: string), url.scheme?.lowercased() == "https", url.host != nil {
        reportURI = url
      } else if case .string(let string) = text {
        fail(path.member("reportURI"), .invalidValue(string, reason: "is not an https URL"))
      } else {
        fail(path.member("reportURI"), .wrongType(expected: "a string", found: text.typeName))
      }
    }
    let declaresPins = ["chainSet", "spkiPins", "certificatePins"].contains { value[$0] != nil }
    if !declaresPins { fail(path.member("chainSet"), .missingValue("chainSet")) }
    guard problems.count == problemsBefore else { return nil }
    do {
      return try CNConfiguration(
        includesSubdomains: includesSubdomains, chains: chains, spkiPins: spkiPins,
        certificatePins: certificatePins, expirationDate: expirationDate,
        enforce: enforce, reportURI: reportURI)
    } catch {
      fail(path, error)
      return nil
    }
  }

  /// A date: a property-list date, or an ISO 8601 string such as 2027-01-31T00:00:00Z. Kept to
  /// the whole second, so that a configuration converts between formats without change (binary
  /// property lists store dates as floating-point numbers).
  mutating func loadDate(_ value: ConfigValue, path: ConfigPath) -> Date? {
    let seconds: TimeInterval
    switch value {
    case .date(let date):
      // Binary property lists store any double; only years 1 to 9999 are dates here.
      guard ISO8601.validRange.contains(date.timeIntervalSince1970) else {
        fail(
          path,
          .invalidValue("\(date.timeIntervalSince1970) seconds since 1970", reason: "is not a date between the years 1 and 9999"))
        return nil
      }
      seconds = date.timeIntervalSince1970
    case .string(let text):
      guard let date = ISO8601.date(from: text) else {
        fail(path, .invalidValue(text, reason: "is not an ISO 8601 date such as 2027-01-31T00:00:00Z"))
        return nil
      }
      seconds = date.timeIntervalSince1970
    default:
      fail(path, .wrongType(expected: "a date", found: value.typeName))
      return nil
    }
    return Date(timeIntervalSince1970: seconds.rounded(.down))
  }

  mutating func fail(_ path: ConfigPath, _ problem: CNConfigurationError.Problem) {
    problems.append(problem.at(path.description))
  }

  /// A model initialiser's refusal, placed at `path`.
  mutating func fail(_ path: ConfigPath, _ error: CNConfigurationError) {
    for problem in error.problems { fail(path, problem) }
  }
}

/// Typed access to configuration values: each returns the value when it has the expected type,
/// and otherwise records ``wrongType`` at `path`, saying what was expected, and returns nil.
extension ConfigurationLoader {
  /// A dictionary's members, in the order written.
  mutating func members(of value: ConfigValue, at path: ConfigPath, expected: String = "a dictionary")
    -> [(key: String, value: ConfigValue)]?
  {
    if case .dictionary(let members) = value { return members }
    fail(path, .wrongType(expected: expected, found: value.typeName))
    return nil
  }

  /// An array's elements.
  mutating func elements(of value: ConfigValue, at path: ConfigPath, expected: String) -> [ConfigValue]? {
    if case .array(let elements) = value { return elements }
    fail(path, .wrongType(expected: expected, found: value.typeName))
    return nil
  }

  /// A boolean.
  mutating func loadBool(_ value: ConfigValue, path: ConfigPath) -> Bool? {
    if case .bool(let flag) = value { return flag }
    fail(path, .wrongType(expected: "a boolean", found: value.typeName))
    return nil
  }
}
