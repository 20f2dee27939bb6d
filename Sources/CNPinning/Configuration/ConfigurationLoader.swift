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

  private(set) var domains: [Domain] = []
  private(set) var problems: [CNConfigurationProblem] = []
  private(set) var warnings: [CNConfigurationWarning] = []
  private var keysByHost: [HostName: String] = [:]

  static let managerKeys = ["PinnedDomains"]
  static let hostKeys = [
    "includesSubdomains", "chainSet", "spkiPins", "certificatePins", "expirationDate", "enforce", "reportURI",
  ]
  static let pinKeys = ["sha256", "appliesTo", "file"]
  /// Where certificate files named by relative paths are looked for.
  var baseDirectory: URL?
  static let linkKeys = ["type", "value"]

  /// Loads the `CNPinningManager` dictionary, or a whole Info.plist that contains one.
  init(document: ConfigValue, baseDirectory: URL? = nil) {
    self.baseDirectory = baseDirectory
    guard case .dictionary = document else {
      fail("", .wrongType(expected: "a dictionary at the top level", found: document.typeName))
      return
    }
    let appTransportSecurity = document["NSAppTransportSecurity"]?["NSPinnedDomains"]
    if let manager = document["CNPinningManager"] {
      guard case .dictionary = manager else {
        fail("CNPinningManager", .wrongType(expected: "a dictionary", found: manager.typeName))
        return
      }
      loadManager(manager)
    } else if document["PinnedDomains"] != nil {
      loadManager(document)
    } else if appTransportSecurity == nil {
      fail("", .missingValue("CNPinningManager"))
    }
    if let appTransportSecurity { loadPinnedDomains(appTransportSecurity) }
  }

  /// Apple's declarative pins: `NSAppTransportSecurity` › `NSPinnedDomains` › domain ›
  /// `NSIncludesSubdomains`, `NSPinnedCAIdentities`, `NSPinnedLeafIdentities` (each an array of
  /// `{SPKI-SHA256-BASE64}`), read as SPKI pins with CA and leaf scope.
  private mutating func loadPinnedDomains(_ value: ConfigValue) {
    let root = "NSAppTransportSecurity.NSPinnedDomains"
    guard case .dictionary(var domains) = value else {
      fail(root, .wrongType(expected: "a dictionary of domains", found: value.typeName))
      return
    }
    guard !domains.isEmpty else {
      fail(root, .noPinnedDomains)
      return
    }
    domains.sort { $0.key < $1.key }
    let keys = ["NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities"]
    for (key, entry) in domains {
      let path = "\(root)[\(Self.quoted(key))]"
      let host = validatedHost(key, path: path)
      guard case .dictionary(let members) = entry else {
        fail(path, .wrongType(expected: "a dictionary", found: entry.typeName))
        continue
      }
      let problemsBefore = problems.count
      for (member, _) in members where !keys.contains(member) {
        fail("\(path).\(member)", .unknownKey(member, suggestion: Suggestion.closest(to: member, among: keys)))
      }
      var includesSubdomains = false
      if let flag = entry["NSIncludesSubdomains"] {
        if case .bool(let value) = flag {
          includesSubdomains = value
        } else {
          fail("\(path).NSIncludesSubdomains", .wrongType(expected: "a boolean", found: flag.typeName))
        }
      }
      var pins: [CNSPKIPin] = []
      for (member, scope) in [("NSPinnedCAIdentities", CNPinScope.ca), ("NSPinnedLeafIdentities", .leaf)] {
        guard let identities = entry[member] else { continue }
        pins += loadIdentities(identities, path: "\(path).\(member)", scope: scope)
      }
      if entry["NSPinnedCAIdentities"] == nil && entry["NSPinnedLeafIdentities"] == nil {
        fail("\(path)", .missingValue("NSPinnedCAIdentities or NSPinnedLeafIdentities"))
      }
      guard problems.count == problemsBefore, let host else { continue }
      // ATS accepts a single identity; CNPinning's own format refuses one (no backup). Read it
      // as ATS does, and say what it risks.
      if pins.count == 1 {
        warnings.append(
          CNConfigurationWarning(
            path: path,
            message:
              "only one pinned identity: when that key changes every client is locked out until the app is updated; add a backup identity"
          ))
      }
      do {
        let configuration = try CNConfiguration(includesSubdomains: includesSubdomains, spkiPins: pins, allowsSingleHashPin: true)
        addDomain(key: key, host: host, path: path, configuration: configuration, isAppTransportSecurity: true)
      } catch {
        fail(path, (error as? CNParseError) ?? .noPinsDefined)
      }
    }
  }

  private mutating func loadIdentities(_ value: ConfigValue, path: String, scope: CNPinScope) -> [CNSPKIPin] {
    guard case .array(let entries) = value, !entries.isEmpty else {
      if case .array = value {
        fail(path, .noPinsDefined)
      } else {
        fail(path, .wrongType(expected: "an array of identities", found: value.typeName))
      }
      return []
    }
    var pins: [CNSPKIPin] = []
    for (index, identity) in entries.enumerated() {
      let entryPath = "\(path)[\(index)]"
      guard case .dictionary(let members) = identity else {
        fail(entryPath, .wrongType(expected: "a dictionary with SPKI-SHA256-BASE64", found: identity.typeName))
        continue
      }
      for (member, _) in members where member != "SPKI-SHA256-BASE64" {
        fail(
          "\(entryPath).\(member)", .unknownKey(member, suggestion: Suggestion.closest(to: member, among: ["SPKI-SHA256-BASE64"]))
        )
      }
      switch identity["SPKI-SHA256-BASE64"] {
      case .string(let digest)?:
        do {
          pins.append(try CNSPKIPin(sha256Base64: digest, scope: scope))
        } catch {
          fail("\(entryPath).SPKI-SHA256-BASE64", (error as? CNParseError) ?? .invalidDigest(digest, reason: "is invalid"))
        }
      case let other?:
        fail("\(entryPath).SPKI-SHA256-BASE64", .wrongType(expected: "a base64 string", found: other.typeName))
      case nil:
        fail("\(entryPath).SPKI-SHA256-BASE64", .missingValue("SPKI-SHA256-BASE64"))
      }
    }
    return pins
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
      let path = "configuration[\(Self.quoted(key))]"
      if let host = validatedHost(key, path: path) {
        addDomain(key: key, host: host, path: path, configuration: configuration)
      }
    }
  }

  private mutating func loadManager(_ manager: ConfigValue) {
    guard case .dictionary(let entries) = manager else { return }
    for (key, _) in entries where !Self.managerKeys.contains(key) {
      fail(key, .unknownKey(key, suggestion: Suggestion.closest(to: key, among: Self.managerKeys)))
    }
    guard let pinned = manager["PinnedDomains"] else {
      fail("", .missingValue("PinnedDomains"))
      return
    }
    guard case .dictionary(var hosts) = pinned else {
      fail("PinnedDomains", .wrongType(expected: "a dictionary of hosts", found: pinned.typeName))
      return
    }
    guard !hosts.isEmpty else {
      fail("PinnedDomains", .noPinnedDomains)
      return
    }
    hosts.sort { $0.key < $1.key }
    for (key, value) in hosts {
      let path = "PinnedDomains[\(Self.quoted(key))]"
      let host = validatedHost(key, path: path)
      if let configuration = loadHost(value, path: path), let host {
        addDomain(key: key, host: host, path: path, configuration: configuration)
      }
    }
  }

  mutating func validatedHost(_ key: String, path: String) -> HostName? {
    switch HostName.parse(key) {
    case .failure(let invalid):
      fail(path, .invalidHost(key, reason: invalid.reason))
      return nil
    case .success(let host):
      return host
    }
  }

  private mutating func addDomain(
    key: String, host: HostName, path: String, configuration: CNConfiguration, isAppTransportSecurity: Bool = false
  ) {
    if let earlier = keysByHost[host] {
      fail(path, .duplicateHost(key, sameAs: earlier))
    } else {
      keysByHost[host] = key
      domains.append(
        Domain(key: key, host: host, configuration: configuration, isAppTransportSecurity: isAppTransportSecurity))
    }
  }

  private mutating func loadHost(_ value: ConfigValue, path: String) -> CNConfiguration? {
    guard case .dictionary(let entries) = value else {
      fail(path, .wrongType(expected: "a dictionary", found: value.typeName))
      return nil
    }
    let problemsBefore = problems.count
    for (key, _) in entries where !Self.hostKeys.contains(key) {
      fail("\(path).\(key)", .unknownKey(key, suggestion: Suggestion.closest(to: key, among: Self.hostKeys)))
    }
    var includesSubdomains = false
    switch value["includesSubdomains"] {
    case .none: fail("\(path).includesSubdomains", .missingValue("includesSubdomains"))
    case .bool(let flag)?: includesSubdomains = flag
    case let other?:
      fail("\(path).includesSubdomains", .wrongType(expected: "a boolean", found: other.typeName))
    }
    let chains = value["chainSet"].flatMap { loadChainSet($0, path: "\(path).chainSet") } ?? []
    let spkiPins =
      value["spkiPins"].flatMap {
        loadPins($0, path: "\(path).spkiPins", make: CNSPKIPin.init(sha256Base64:scope:), fromCertificate: nil)
      } ?? []
    let certificatePins =
      value["certificatePins"].flatMap {
        loadPins(
          $0, path: "\(path).certificatePins", make: CNCertificatePin.init(sha256Base64:scope:),
          fromCertificate: CNCertificatePin.init(certificate:scope:file:))
      } ?? []
    let expirationDate = value["expirationDate"].flatMap { loadDate($0, path: "\(path).expirationDate") }
    var enforce = true
    if let flag = value["enforce"] {
      if case .bool(let value) = flag {
        enforce = value
      } else {
        fail("\(path).enforce", .wrongType(expected: "a boolean", found: flag.typeName))
      }
    }
    var reportURI: URL?
    if let text = value["reportURI"] {
      if case .string(let string) = text, let url = URL(string: string), url.scheme?.lowercased() == "https", url.host != nil {
        reportURI = url
      } else if case .string(let string) = text {
        fail("\(path).reportURI", .invalidValue(string, reason: "is not an https URL"))
      } else {
        fail("\(path).reportURI", .wrongType(expected: "a string", found: text.typeName))
      }
    }
    let declaresPins = ["chainSet", "spkiPins", "certificatePins"].contains { value[$0] != nil }
    if !declaresPins { fail("\(path).chainSet", .missingValue("chainSet")) }
    guard problems.count == problemsBefore else { return nil }
    do {
      return try CNConfiguration(
        includesSubdomains: includesSubdomains, chains: chains, spkiPins: spkiPins,
        certificatePins: certificatePins, expirationDate: expirationDate,
        enforce: enforce, reportURI: reportURI)
    } catch {
      fail(path, (error as? CNParseError) ?? .noPinsDefined)
      return nil
    }
  }

  /// Reads an array of hash pins: `{"sha256": base64, "appliesTo": leaf|ca|any}`, or — where
  /// `fromCertificate` is given — `{"file": path}` instead of `sha256`.
  private mutating func loadPins<Pin>(
    _ value: ConfigValue, path: String, make: (String, CNPinScope) throws -> Pin,
    fromCertificate: ((CNCertificate, CNPinScope, String) -> Pin)?
  ) -> [Pin]? {
    guard case .array(let entries) = value, !entries.isEmpty else {
      if case .array = value {
        fail(path, .noPinsDefined)
      } else {
        fail(path, .wrongType(expected: "an array of pins", found: value.typeName))
      }
      return nil
    }
    let problemsBefore = problems.count
    var pins: [Pin] = []
    for (index, entry) in entries.enumerated() {
      let entryPath = "\(path)[\(index)]"
      guard case .dictionary(let members) = entry else {
        fail(entryPath, .wrongType(expected: "a dictionary with \"sha256\"", found: entry.typeName))
        continue
      }
      let allowed = fromCertificate == nil ? ["sha256", "appliesTo"] : Self.pinKeys
      for (key, _) in members where !allowed.contains(key) {
        fail("\(entryPath).\(key)", .unknownKey(key, suggestion: Suggestion.closest(to: key, among: allowed)))
      }
      var scope = CNPinScope.any
      if let text = entry["appliesTo"] {
        if case .string(let name) = text, let parsed = CNPinScope(rawValue: name) {
          scope = parsed
        } else if case .string(let name) = text {
          fail("\(entryPath).appliesTo", .invalidValue(name, reason: "is not one of leaf, ca, any"))
        } else {
          fail("\(entryPath).appliesTo", .wrongType(expected: "a string", found: text.typeName))
        }
      }
      switch (entry["sha256"], entry["file"]) {
      case (.string(let digest)?, nil):
        do {
          pins.append(try make(digest, scope))
        } catch {
          fail("\(entryPath).sha256", (error as? CNParseError) ?? .invalidDigest(digest, reason: "is invalid"))
        }
      case (nil, .string(let file)?) where fromCertificate != nil:
        if let certificate = loadCertificate(file, path: "\(entryPath).file") {
          pins.append(fromCertificate!(certificate, scope, file))
        }
      case (let digest?, nil):
        fail("\(entryPath).sha256", .wrongType(expected: "a base64 string", found: digest.typeName))
      case (nil, let file?) where fromCertificate != nil:
        fail("\(entryPath).file", .wrongType(expected: "a path string", found: file.typeName))
      case (nil, _?):
        // "file" is not allowed here (reported as an unknown key above), so sha256 is missing.
        fail("\(entryPath).sha256", .missingValue("sha256"))
      case (nil, nil):
        fail("\(entryPath).sha256", .missingValue(fromCertificate == nil ? "sha256" : "sha256 or file"))
      case (_?, _?):
        fail("\(entryPath)", .invalidValue("sha256 and file", reason: "give one of them, not both"))
      }
    }
    return problems.count == problemsBefore ? pins : nil
  }

  private mutating func loadCertificate(_ file: String, path: String) -> CNCertificate? {
    let url = URL(fileURLWithPath: file, relativeTo: file.hasPrefix("/") ? nil : baseDirectory)
    guard FileManager.default.fileExists(atPath: url.path) else {
      fail(path, .unreadableCertificate(file, reason: "no such file"))
      return nil
    }
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      fail(path, .unreadableCertificate(file, reason: error.localizedDescription))
      return nil
    }
    do {
      // DER starts with a SEQUENCE tag; anything else is read as PEM.
      if data.first == 0x30 { return try CNCertificate(derEncoded: data) }
      return try CNCertificate(pemEncoded: String(decoding: data, as: UTF8.self))
    } catch {
      fail(path, .unreadableCertificate(file, reason: "\(error)"))
      return nil
    }
  }

  /// A date: a property-list date, or an ISO 8601 string such as 2027-01-31T00:00:00Z. Kept to
  /// the whole second, so that a configuration converts between formats without change (binary
  /// property lists store dates as floating-point numbers).
  mutating func loadDate(_ value: ConfigValue, path: String) -> Date? {
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

  /// Reads an array of chains (each root → leaf), reporting every problem under `path`.
  mutating func loadChainSet(_ value: ConfigValue, path: String) -> [CNChain]? {
    guard case .array(let chainValues) = value else {
      fail(path, .wrongType(expected: "an array of chains", found: value.typeName))
      return nil
    }
    guard !chainValues.isEmpty else {
      fail(path, .noChainsDefined)
      return nil
    }
    let problemsBefore = problems.count
    var chains: [CNChain] = []
    for (index, chainValue) in chainValues.enumerated() {
      if let chain = loadChain(chainValue, path: "\(path)[\(index)]") { chains.append(chain) }
    }
    guard problems.count == problemsBefore else { return nil }
    do {
      _ = try CNConfiguration(chains)
    } catch {
      let index = if case .duplicateChain(let index) = error as? CNParseError { index } else { 0 }
      fail("\(path)[\(index)]", .duplicateChain(index))
      return nil
    }
    return chains
  }

  private mutating func loadChain(_ value: ConfigValue, path: String) -> CNChain? {
    guard case .array(let linkValues) = value else {
      fail(path, .wrongType(expected: "an array of links (root → leaf)", found: value.typeName))
      return nil
    }
    var links: [CNChainLink] = []
    links.reserveCapacity(linkValues.count)
    for (index, linkValue) in linkValues.enumerated() {
      if let link = loadLink(linkValue, path: "\(path)[\(index)]") { links.append(link) }
    }
    guard links.count == linkValues.count else { return nil }
    do {
      return try CNChain(links)
    } catch {
      fail(path, error)
      return nil
    }
  }

  private mutating func loadLink(_ value: ConfigValue, path: String) -> CNChainLink? {
    guard case .dictionary(let entries) = value else {
      fail(path, .wrongType(expected: "a dictionary with \"type\" and \"value\"", found: value.typeName))
      return nil
    }
    var valid = true
    for (key, _) in entries where !Self.linkKeys.contains(key) {
      fail("\(path).\(key)", .unknownKey(key, suggestion: Suggestion.closest(to: key, among: Self.linkKeys)))
      valid = false
    }
    var type = CNChainLink.LinkType.exact
    switch value["type"] {
    case .none:
      warnings.append(
        CNConfigurationWarning(path: path, message: "link has no \"type\"; it is treated as \"exact\""))
    case .string(let name)?:
      if let parsed = CNChainLink.LinkType(rawValue: name) {
        type = parsed
      } else {
        let names = CNChainLink.LinkType.allCases.map(\.rawValue)
        fail("\(path).type", .unknownLinkType(name, suggestion: Suggestion.closest(to: name, among: names)))
        valid = false
      }
    case let other?:
      fail("\(path).type", .wrongType(expected: "a string", found: other.typeName))
      valid = false
    }
    switch value["value"] {
    case .none:
      fail("\(path).value", .missingValue("value"))
      return nil
    case .string(let text)?:
      do {
        let link = try CNChainLink(type, text)
        return valid ? link : nil
      } catch {
        fail("\(path).value", error)
        return nil
      }
    case let other?:
      fail("\(path).value", .wrongType(expected: "a string", found: other.typeName))
      return nil
    }
  }

  mutating func fail(_ path: String, _ error: CNParseError) {
    problems.append(CNConfigurationProblem(path: path, error: error))
  }

  /// A key as it appears in a path: in double quotes, with quotes, backslashes and control
  /// characters escaped.
  static func quoted(_ key: String) -> String {
    var result = "\""
    for scalar in key.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        result +=
          "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
