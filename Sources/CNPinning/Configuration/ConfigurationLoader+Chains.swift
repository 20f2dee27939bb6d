import Foundation

/// Chains and links, shared by configuration files and enterprise policies.
extension ConfigurationLoader {
  /// Reads an array of chains (each root → leaf), reporting every problem under `path`.
  mutating func loadChainSet(_ value: ConfigValue, path: ConfigPath) -> [CNChain]? {
    guard let chainValues = elements(of: value, at: path, expected: "an array of chains") else { return nil }
    guard !chainValues.isEmpty else {
      fail(path, .noChainsDefined)
      return nil
    }
    let problemsBefore = problems.count
    var chains: [CNChain] = []
    for (index, chainValue) in chainValues.enumerated() {
      if let chain = loadChain(chainValue, path: path.element(index)) { chains.append(chain) }
    }
    guard problems.count == problemsBefore else { return nil }
    do {
      _ = try CNConfiguration(chains)
    } catch {
      if case .duplicateChain(let index) = error.problems[0].kind { fail(path.element(index), error) } else { fail(path, error) }
      return nil
    }
    return chains
  }

  mutating func loadChain(_ value: ConfigValue, path: ConfigPath) -> CNChain? {
    guard let linkValues = elements(of: value, at: path, expected: "an array of links (root → leaf)") else { return nil }
    var links: [CNChainLink] = []
    links.reserveCapacity(linkValues.count)
    for (index, linkValue) in linkValues.enumerated() {
      if let link = loadLink(linkValue, path: path.element(index)) { links.append(link) }
    }
    guard links.count == linkValues.count else { return nil }
    do {
      return try CNChain(links)
    } catch {
      // A misplaced link is named where it is: its type, or its mayBeAnchor.
      if case .misplacedLink(let index, _) = error.problems[0].kind {
        fail(path.element(index).member(links[index].type == .subjectAltName ? "type" : "mayBeAnchor"), error)
      } else {
        fail(path, error)
      }
      return nil
    }
  }

  mutating func loadLink(_ value: ConfigValue, path: ConfigPath) -> CNChainLink? {
    guard let entries = self.members(of: value, at: path, expected: "a dictionary with \"type\" and \"value\"") else {
      return nil
    }
    var valid = true
    for (key, _) in entries where !Self.linkKeys.contains(key) {
      fail(path.member(key), .unknownKey(key, suggestion: Suggestion.closest(to: key, among: Self.linkKeys)))
      valid = false
    }
    var type = CNChainLink.LinkType.exact
    switch value["type"] {
    case .none:
      warnings.append(
        CNConfigurationWarning(path: path.description, message: "link has no \"type\"; it is treated as \"exact\""))
    case .string(let name)?:
      if let parsed = CNChainLink.LinkType(rawValue: name) {
        type = parsed
      } else {
        let names = CNChainLink.LinkType.allCases.map(\.rawValue)
        fail(path.member("type"), .unknownLinkType(name, suggestion: Suggestion.closest(to: name, among: names)))
        valid = false
      }
    case let other?:
      fail(path.member("type"), .wrongType(expected: "a string", found: other.typeName))
      valid = false
    }
    var mayBeAnchor = false
    if let flag = value["mayBeAnchor"] {
      readsMayBeAnchor = true
      if let read = loadBool(flag, path: path.member("mayBeAnchor")) { mayBeAnchor = read } else { valid = false }
    }
    switch value["value"] {
    case .none:
      fail(path.member("value"), .missingValue("value"))
      return nil
    case .string(let text)?:
      do {
        let link = try CNChainLink(type, text, mayBeAnchor: mayBeAnchor)
        return valid ? link : nil
      } catch {
        fail(path.member("value"), error)
        return nil
      }
    case let other?:
      fail(path.member("value"), .wrongType(expected: "a string", found: other.typeName))
      return nil
    }
  }
}
