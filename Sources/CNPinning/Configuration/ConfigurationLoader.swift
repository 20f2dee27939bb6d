/// Turns a configuration document into validated per-host configurations, collecting every
/// problem with the path of the element at fault. Hosts are visited in sorted order, so the
/// problems come in the same order on every run.
struct ConfigurationLoader {
  /// A configured host as written, with its normalised name and its pins.
  struct Domain {
    let key: String
    let host: HostName
    let configuration: CNConfiguration
  }

  private(set) var domains: [Domain] = []
  private(set) var problems: [CNConfigurationProblem] = []
  private(set) var warnings: [CNConfigurationWarning] = []
  private var keysByHost: [HostName: String] = [:]

  static let managerKeys = ["PinnedDomains"]
  static let hostKeys = ["includesSubdomains", "chainSet"]
  static let linkKeys = ["type", "value"]

  /// Loads the `CNPinningManager` dictionary, or a whole Info.plist that contains one.
  init(document: ConfigValue) {
    guard case .dictionary = document else {
      fail("", .wrongType(expected: "a dictionary at the top level", found: document.typeName))
      return
    }
    if let manager = document["CNPinningManager"] {
      guard case .dictionary = manager else {
        fail("CNPinningManager", .wrongType(expected: "a dictionary", found: manager.typeName))
        return
      }
      loadManager(manager)
    } else if document["PinnedDomains"] != nil {
      loadManager(document)
    } else {
      fail("", .missingValue("CNPinningManager"))
    }
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

  private mutating func addDomain(key: String, host: HostName, path: String, configuration: CNConfiguration) {
    if let earlier = keysByHost[host] {
      fail(path, .duplicateHost(key, sameAs: earlier))
    } else {
      keysByHost[host] = key
      domains.append(Domain(key: key, host: host, configuration: configuration))
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
    var chains: [CNChain]?
    if let chainSet = value["chainSet"] {
      chains = loadChainSet(chainSet, path: "\(path).chainSet")
    } else {
      fail("\(path).chainSet", .missingValue("chainSet"))
    }
    guard problems.count == problemsBefore, let chains else { return nil }
    return try? CNConfiguration(includesSubdomains: includesSubdomains, chains)
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
    guard !linkValues.isEmpty else {
      fail(path, .emptyChain)
      return nil
    }
    var links: [CNChainLink] = []
    links.reserveCapacity(linkValues.count)
    for (index, linkValue) in linkValues.enumerated() {
      if let link = loadLink(linkValue, path: "\(path)[\(index)]") { links.append(link) }
    }
    guard links.count == linkValues.count else { return nil }
    return try? CNChain(links)
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
      guard !text.isEmpty else {
        fail("\(path).value", .emptyValue)
        return nil
      }
      return valid ? try? CNChainLink(type, text) : nil
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
        result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
          + String(scalar.value, radix: 16)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
