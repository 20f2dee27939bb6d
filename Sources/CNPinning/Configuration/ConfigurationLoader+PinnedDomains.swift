import Foundation

extension ConfigurationLoader {
  /// Apple's declarative pins: `NSAppTransportSecurity` › `NSPinnedDomains` › domain ›
  /// `NSIncludesSubdomains`, `NSPinnedCAIdentities`, `NSPinnedLeafIdentities` (each an array of
  /// `{SPKI-SHA256-BASE64}`), read as SPKI pins with CA and leaf scope.
  mutating func loadPinnedDomains(_ value: ConfigValue) {
    let root: ConfigPath = "NSAppTransportSecurity.NSPinnedDomains"
    guard var domains = self.members(of: value, at: root, expected: "a dictionary of domains") else { return }
    guard !domains.isEmpty else {
      fail(root, .noPinnedDomains)
      return
    }
    domains.sort { $0.key < $1.key }
    let keys = ["NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities"]
    for (key, entry) in domains {
      let path = root.entry(key)
      let host = validatedHost(key, path: path)
      guard let members = self.members(of: entry, at: path) else { continue }
      let problemsBefore = problems.count
      for (member, _) in members where !keys.contains(member) {
        fail(path.member(member), .unknownKey(member, suggestion: Suggestion.closest(to: member, among: keys)))
      }
      let includesSubdomains =
        entry["NSIncludesSubdomains"].map { loadBool($0, path: path.member("NSIncludesSubdomains")) ?? false } ?? false
      var pins: [CNSPKIPin] = []
      for (member, scope) in [("NSPinnedCAIdentities", CNPinScope.ca), ("NSPinnedLeafIdentities", .leaf)] {
        guard let identities = entry[member] else { continue }
        pins += loadIdentities(identities, path: path.member(member), scope: scope)
      }
      if entry["NSPinnedCAIdentities"] == nil && entry["NSPinnedLeafIdentities"] == nil {
        fail(path, .missingValue("NSPinnedCAIdentities or NSPinnedLeafIdentities"))
      }
      guard problems.count == problemsBefore, let host else { continue }
      // ATS accepts a single identity; CNPinning's own format refuses one (no backup). Read it
      // as ATS does, and say what it risks.
      if pins.count == 1 {
        warnings.append(
          CNConfigurationWarning(
            path: path.description,
            message:
              "only one pinned identity: when that key changes every client is locked out until the app is updated; add a backup identity"
          ))
      }
      do {
        let configuration = try CNConfiguration(includesSubdomains: includesSubdomains, spkiPins: pins, allowsSingleHashPin: true)
        addDomain(key: key, host: host, path: path, configuration: configuration, isAppTransportSecurity: true)
      } catch {
        fail(path, error)
      }
    }
  }

  mutating func loadIdentities(_ value: ConfigValue, path: ConfigPath, scope: CNPinScope) -> [CNSPKIPin] {
    guard let entries = elements(of: value, at: path, expected: "an array of identities") else { return [] }
    guard !entries.isEmpty else {
      fail(path, .noPinsDefined)
      return []
    }
    var pins: [CNSPKIPin] = []
    for (index, identity) in entries.enumerated() {
      let entryPath = path.element(index)
      guard let members = self.members(of: identity, at: entryPath, expected: "a dictionary with SPKI-SHA256-BASE64") else {
        continue
      }
      for (member, _) in members where member != "SPKI-SHA256-BASE64" {
        fail(
          entryPath.member(member), .unknownKey(member, suggestion: Suggestion.closest(to: member, among: ["SPKI-SHA256-BASE64"]))
        )
      }
      switch identity["SPKI-SHA256-BASE64"] {
      case .string(let digest)?:
        do {
          pins.append(try CNSPKIPin(sha256Base64: digest, scope: scope))
        } catch {
          fail(entryPath.member("SPKI-SHA256-BASE64"), error)
        }
      case let other?:
        fail(entryPath.member("SPKI-SHA256-BASE64"), .wrongType(expected: "a base64 string", found: other.typeName))
      case nil:
        fail(entryPath.member("SPKI-SHA256-BASE64"), .missingValue("SPKI-SHA256-BASE64"))
      }
    }
    return pins
  }
}
