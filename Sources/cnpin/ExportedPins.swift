import CNPinning
import Foundation

/// What an exported file pins, per host, in the terms every format shares: what `cnpin lint
/// --against` compares. Read from a file by the package's readers (property lists as
/// configurations are read, Network Security Config through the one XML reader, `MarkupElement`,
/// OkHttp's `.add(pattern, pins…)` calls), or from a fresh `PinExport`.
struct ExportedPins: Equatable {
  struct Host: Equatable {
    var includesSubdomains = false
    /// SPKI SHA-256, base64; for NSPinnedDomains the CA identities.
    var keys: Set<String> = []
    /// NSPinnedDomains' leaf identities.
    var leafKeys: Set<String> = []
    /// `YYYY-MM-DD`, where the format has an expiry.
    var expiration: String?
    var enforce = true
    /// TrustKit's report URIs, as written.
    var reportURIs: [String] = []
  }

  let format: PinFormat
  /// Keyed by host name, lowercased.
  var hosts: [String: Host] = [:]
  /// What the file holds that bears on pinning and that cnpin does not model, each with its
  /// line: drift whatever the configuration says, as no comparison could see what it does.
  var unmodelled: [String] = []
  /// Where each host is pinned in the file (`line 12`), for naming what cannot be imported.
  var lines: [String: String] = [:]
  /// Hosts whose pins `hosts` holds only approximately (an unmodelled line names each).
  var inexact: Set<String> = []

  /// What `export` writes.
  init(_ export: PinExport) {
    format = export.format
    for host in export.hosts {
      hosts[host.host.lowercased()] = Host(
        includesSubdomains: host.includesSubdomains,
        keys: Set(host.keys.filter { !$0.isLeaf || !export.format.carriesLeafScope }.map(\.spkiSHA256)),
        leafKeys: export.format.carriesLeafScope ? Set(host.keys.filter(\.isLeaf).map(\.spkiSHA256)) : [],
        expiration: export.format.carriesExpiry ? host.expirationDate.map(PinExport.day) : nil,
        enforce: export.format.carriesReportOnly ? host.enforce : true,
        reportURIs: export.format.carriesReportURI ? host.reportURI.map { [$0.absoluteString] } ?? [] : [])
    }
  }

  private init(format: PinFormat) { self.format = format }

  /// Reads an exported file, telling its format from its content.
  static func read(_ data: Data, path: String) throws(CLIError) -> ExportedPins {
    let text = String(decoding: data, as: UTF8.self)
    if text.contains("<\(NetworkSecurityConfigNames.root)") { return try networkSecurityConfig(data, path: path) }
    if text.contains("CertificatePinner") && !text.contains("<plist") { return okHttp(text) }
    let plist: Any
    do {
      plist = try ConfigDocument.propertyList(data)
    } catch {
      throw .configuration(
        "\(path) is no exported file cnpin reads (a property list, Network Security Config XML or OkHttp Kotlin): \(error.problems.first?.reason ?? "\(error)")"
      )
    }
    let root = plist as? [String: Any] ?? [:]
    if let domains = (root[NSPinnedDomainsNames.appTransportSecurity] as? [String: Any])?[NSPinnedDomainsNames.pinnedDomains]
      as? [String: Any]
    {
      return nsPinnedDomains(domains, text: text)
    }
    let trustKitRoot = root[TrustKitNames.infoPlistKey] as? [String: Any] ?? root
    if trustKitRoot[TrustKitNames.pinnedDomains] is [String: Any] { return trustKit(trustKitRoot, text: text) }
    throw .configuration(
      "\(path) is a property list with neither NSAppTransportSecurity › NSPinnedDomains nor \(TrustKitNames.pinnedDomains)")
  }

  /// The line of a property list's `<key>name</key>` (the first), for naming what is not modelled.
  private static func line(ofKey name: String, in text: String) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let tag = "<key>\(DocumentWriter.xmlEscaped(name))</key>"
    return lines.firstIndex { $0.contains(tag) }.map { "line \($0 + 1)" }
      ?? "no line (not in the file, or a binary property list)"
  }

  /// Records a host of a format that names each host once (a property list's key, an NSC
  /// `domain`): a second entry for the same name (two keys differing in case, a domain in two
  /// configs, which Android refuses) is not modelled and leaves the host inexact.
  private mutating func add(_ host: Host, as name: String, line: String) {
    if hosts[name] != nil {
      unmodelled.append("\(line): \(Output.value(name)) is pinned a second time")
      inexact.insert(name)
    }
    hosts[name] = host
    lines[name] = lines[name] ?? line
  }

  /// A host's entry in a property list: the host, and how a finding names it (its line).
  private struct Place {
    let host: String
    let text: String
  }

  /// `entry[key]` as `T` when it is there; a value of another type is not modelled (its consumer
  /// would refuse or misread it), named with `place`, read as absent, and leaves the host inexact.
  private static func value<T>(
    _ entry: [String: Any], _ key: String, _ expected: String, place: Place, into pins: inout ExportedPins
  )
    -> T?
  {
    guard let raw = entry[key] else { return nil }
    if let typed = raw as? T { return typed }
    pins.unmodelled.append("\(place.text): \(key) is not \(expected)")
    pins.inexact.insert(place.host)
    return nil
  }

  /// NSPinnedDomains' identities: an array of dictionaries holding a base64 string each.
  private static func identities(_ entry: [String: Any], _ key: String, place: Place, into pins: inout ExportedPins)
    -> Set<String>
  {
    let spki = NSPinnedDomainsNames.spki
    guard let list: [Any] = value(entry, key, "an array of identities", place: place, into: &pins) else { return [] }
    var keys = Set<String>()
    for identity in list {
      guard let digest = (identity as? [String: Any])?[spki] as? String else {
        pins.unmodelled.append("\(place.text): \(key) holds an identity that is not a dictionary with a \(spki) string")
        pins.inexact.insert(place.host)
        continue
      }
      keys.insert(digest)
    }
    return keys
  }

  private static func nsPinnedDomains(_ domains: [String: Any], text: String) -> ExportedPins {
    typealias Names = NSPinnedDomainsNames
    var pins = ExportedPins(format: .nsPinnedDomains)
    for (name, value) in domains.sorted(by: { $0.key < $1.key }) {
      let keyLine = line(ofKey: name, in: text)
      let place = Place(host: name.lowercased(), text: "\(keyLine): \(Output.value(name))")
      guard let entry = value as? [String: Any] else {
        pins.unmodelled.append("\(place.text): the domain's entry is not a dictionary")
        continue
      }
      let host = Host(
        includesSubdomains: Self.value(entry, Names.includesSubdomains, "a boolean", place: place, into: &pins) ?? false,
        keys: identities(entry, Names.caIdentities, place: place, into: &pins),
        leafKeys: identities(entry, Names.leafIdentities, place: place, into: &pins))
      pins.add(host, as: place.host, line: keyLine)
    }
    return pins
  }

  /// TrustKit's dictionary, by the keys it reads (`TrustKitNames`); a key cnpin does not write is
  /// not modelled, and `TSKIgnorePinningForUserDefinedTrustAnchors` true turns pinning off on macOS
  /// for any chain ending at an anchor the user installed.
  private static func trustKit(_ root: [String: Any], text: String) -> ExportedPins {
    typealias Names = TrustKitNames
    var pins = ExportedPins(format: .trustKit)
    for key in root.keys.sorted() where !Names.global.contains(key) {
      pins.unmodelled.append("\(line(ofKey: key, in: text)): TrustKit key \(Output.value(key)), which cnpin does not write")
    }
    if root[Names.ignorePinningForUserDefinedTrustAnchors] as? Bool != false {
      pins.unmodelled.append(
        "\(line(ofKey: Names.ignorePinningForUserDefinedTrustAnchors, in: text)): \(Names.ignorePinningForUserDefinedTrustAnchors) is not false: on macOS TrustKit skips the pins for a chain that ends at an anchor the user installed"
      )
    }
    for (name, value) in (root[Names.pinnedDomains] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
      let keyLine = line(ofKey: name, in: text)
      let place = Place(host: name.lowercased(), text: "\(keyLine): \(Output.value(name))")
      guard let entry = value as? [String: Any] else {
        pins.unmodelled.append("\(place.text): the domain's policy is not a dictionary")
        continue
      }
      for key in entry.keys.sorted() where !Names.domain.contains(key) {
        pins.unmodelled.append(
          "\(line(ofKey: key, in: text)): \(Output.value(name)): TrustKit key \(Output.value(key)), which cnpin does not write")
      }
      if entry[Names.disableDefaultReportUri] as? Bool != true {
        pins.unmodelled.append(
          "\(line(ofKey: name, in: text)): \(Output.value(name)): \(Names.disableDefaultReportUri) is not true: TrustKit also sends failure reports to its own collector"
        )
      }
      let host = Host(
        includesSubdomains: Self.value(entry, Names.includeSubdomains, "a boolean", place: place, into: &pins) ?? false,
        keys: Set(Self.value(entry, Names.publicKeyHashes, "an array of strings", place: place, into: &pins) ?? [String]()),
        expiration: Self.value(entry, Names.expirationDate, "a string", place: place, into: &pins),
        enforce: Self.value(entry, Names.enforcePinning, "a boolean", place: place, into: &pins) ?? true,
        reportURIs: Self.value(entry, Names.reportUris, "an array of strings", place: place, into: &pins) ?? [])
      pins.add(host, as: place.host, line: keyLine)
    }
    return pins
  }

  /// OkHttp: each plain `.add("pattern", "sha256/…", …)` call outside comments, read as Kotlin
  /// reads the file; `**.host` is the host with its subdomains. Any other `add` (inside
  /// `apply { … }`, with a constant or a template, a `*.` pattern, a pin that is not SHA-256) is
  /// not modelled.
  private static func okHttp(_ text: String) -> ExportedPins {
    var pins = ExportedPins(format: .okHttp)
    var plainKeys: [String: Set<String>] = [:]
    var wildcardKeys: [String: Set<String>] = [:]
    let tokens = KotlinSource.tokens(text)
    var index = 0
    while index < tokens.count {
      let token = tokens[index]
      index += 1
      let dotted: Bool
      switch token.kind {
      case .call("add"): dotted = true
      case .bareCall("add"): dotted = false
      default: continue
      }
      // The arguments up to the matching `)`.
      var arguments: [KotlinSource.Kind] = []
      var depth = 1
      while index < tokens.count && depth > 0 {
        switch tokens[index].kind {
        case .call, .bareCall, .open: depth += 1
        case .close: depth -= 1
        default: break
        }
        if depth > 0 { arguments.append(tokens[index].kind) }
        index += 1
      }
      var strings: [String] = []
      var plain = dotted
      for (position, argument) in arguments.enumerated() {
        switch argument {
        case .string(let value, template: false) where position % 2 == 0: strings.append(value)
        case .comma where position % 2 == 1: break
        default: plain = false
        }
      }
      let patternOK = strings.first.map { !$0.hasPrefix("*.") } ?? false
      let pinsOK = strings.count > 1 && strings.dropFirst().allSatisfy { $0.hasPrefix("sha256/") }
      guard plain, patternOK, pinsOK, let pattern = strings.first else {
        pins.unmodelled.append(
          "line \(token.line): a pin added in a way cnpin does not read (it reads plain .add(\"host\", \"sha256/…\") calls with literal strings, and **. patterns)"
        )
        continue
      }
      let wildcard = pattern.hasPrefix("**.")
      let name = (wildcard ? String(pattern.dropFirst(3)) : pattern).lowercased()
      let keys = strings.dropFirst().map { String($0.dropFirst(7)) }
      var host = pins.hosts[name] ?? Host()
      host.includesSubdomains = host.includesSubdomains || wildcard
      host.keys.formUnion(keys)
      pins.hosts[name] = host
      pins.lines[name] = pins.lines[name] ?? "line \(token.line)"
      if wildcard {
        wildcardKeys[name, default: []].formUnion(keys)
      } else {
        plainKeys[name, default: []].formUnion(keys)
      }
    }
    // OkHttp checks the union of every pattern a host matches. `host` and `**.host` together are
    // one entry only when the host itself gains nothing its subdomains lack.
    for (name, keys) in plainKeys.sorted(by: { $0.key < $1.key }) {
      guard let below = wildcardKeys[name], !keys.isSubset(of: below) else { continue }
      pins.unmodelled.append(
        "\(pins.lines[name] ?? "no line"): \(Output.value(name)) is pinned by itself with keys **.\(Output.value(name)) lacks: its subdomains accept fewer keys than it does"
      )
      pins.inexact.insert(name)
    }
    return pins
  }

  /// Each `domain-config`'s domains with the nearest `pin-set`: its own, else an enclosing
  /// config's (a nested config inherits its parent's). Trust anchors (whose `overridePins`
  /// bypasses the pin-set, as the anchors of `debug-overrides` do by default in a debug build),
  /// elements Android does not read (it skips them without a word) and more than one pin-set in a
  /// config (which Android refuses) are not modelled.
  private static func networkSecurityConfig(_ data: Data, path: String) throws(CLIError) -> ExportedPins {
    typealias Names = NetworkSecurityConfigNames
    let root: MarkupElement
    do {
      root = try MarkupElement.parse(String(decoding: data, as: UTF8.self))
    } catch {
      throw .configuration("\(path):\(error.line): invalid XML: \(error.reason)")
    }
    var pins = ExportedPins(format: .networkSecurityConfig)
    /// The elements Android reads inside each, by parent (`XmlConfigSource.java`).
    let children: [String: Set<String>] = [
      Names.root: [Names.baseConfig, Names.domainConfig, Names.debugOverrides],
      Names.baseConfig: [Names.trustAnchors], Names.debugOverrides: [Names.trustAnchors],
      Names.domainConfig: [Names.domain, Names.pinSet, Names.domainConfig, Names.trustAnchors],
      Names.pinSet: [Names.pin], Names.trustAnchors: [Names.certificates],
    ]
    if root.name != Names.root {
      pins.unmodelled.append("line \(root.line): the root element is <\(Output.value(root.name))>, not <\(Names.root)>")
    }
    root.walk { element, ancestors in
      if let parent = ancestors.last, !(children[parent.name]?.contains(element.name) ?? false) {
        pins.unmodelled.append(
          "line \(element.line): <\(Output.value(element.name))> inside <\(Output.value(parent.name))>, which Android skips or refuses"
        )
      }
      switch element.name {
      case Names.trustAnchors:
        let overriding = element.children.contains { $0.attributes[Names.overridePins] == "true" }
        let inDebug = ancestors.contains { $0.name == Names.debugOverrides }
        pins.unmodelled.append(
          "line \(element.line): <\(Names.trustAnchors)>"
            + (overriding
              ? " with \(Names.overridePins)=\"true\": chains ending at these anchors bypass the pin-set"
              : inDebug
                ? " in <\(Names.debugOverrides)>: in a debug build these anchors bypass the pin-set unless \(Names.overridePins)=\"false\""
                : ": which anchors the app trusts, which cnpin does not model"))
      case Names.pin where element.attributes[Names.digest] != Names.sha256:
        pins.unmodelled.append(
          "line \(element.line): a pin whose digest is \(Output.value(element.attributes[Names.digest] ?? "missing")), not \(Names.sha256), which Android refuses"
        )
      case Names.domainConfig:
        let pinSets = element.children.filter { $0.name == Names.pinSet }
        if pinSets.count > 1 {
          pins.unmodelled.append(
            "line \(pinSets[1].line): a second <\(Names.pinSet)> in one <\(Names.domainConfig)>, which Android refuses")
        }
        let configs = [element] + ancestors.reversed().filter { $0.name == Names.domainConfig }
        let pinSet = configs.lazy.compactMap { $0.children.first { $0.name == Names.pinSet } }.first
        let keys = pinSet?.children.filter { $0.name == Names.pin && $0.attributes[Names.digest] == Names.sha256 }
          .map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
        for domain in element.children where domain.name == Names.domain {
          let host = Host(
            includesSubdomains: domain.attributes[Names.includeSubdomains] == "true", keys: Set(keys ?? []),
            expiration: pinSet?.attributes[Names.expiration])
          pins.add(
            host, as: domain.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), line: "line \(domain.line)")
        }
      default: break
      }
    }
    return pins
  }

  /// The differences, one line each, with the configuration's side first.
  func drift(from exported: ExportedPins, file: String, against: String) -> [String] {
    var lines = exported.unmodelled.map { "\($0): not modelled, so it is drift whatever \(file) says" }
    for name in Set(hosts.keys).union(exported.hosts.keys).sorted() {
      let host = Output.value(name)
      guard let expected = hosts[name] else {
        lines.append("\(host): \(against) pins it, \(file) no longer exports it")
        continue
      }
      guard let actual = exported.hosts[name] else {
        lines.append("\(host): \(file) exports it, \(against) does not pin it")
        continue
      }
      // Keys are the file's text: escaped, so that none can break the report's lines.
      for key in expected.keys.subtracting(actual.keys).sorted() {
        lines.append("\(host): \(against) lacks key \(Output.value(key))")
      }
      for key in actual.keys.subtracting(expected.keys).sorted() {
        lines.append("\(host): \(against) pins key \(Output.value(key)), which \(file) no longer yields")
      }
      for key in expected.leafKeys.subtracting(actual.leafKeys).sorted() {
        lines.append("\(host): \(against) lacks leaf key \(Output.value(key))")
      }
      for key in actual.leafKeys.subtracting(expected.leafKeys).sorted() {
        lines.append("\(host): \(against) pins leaf key \(Output.value(key)), which \(file) no longer yields")
      }
      if expected.includesSubdomains != actual.includesSubdomains {
        lines.append(
          "\(host): subdomains are \(expected.includesSubdomains ? "" : "not ")included in \(file), but \(actual.includesSubdomains ? "" : "not ")in \(against)"
        )
      }
      if expected.expiration != actual.expiration {
        lines.append(
          "\(host): the pins expire \(expected.expiration ?? "never") in \(file), \(actual.expiration.map(Output.value) ?? "never") in \(against)"
        )
      }
      if expected.reportURIs != actual.reportURIs {
        lines.append(
          "\(host): reports go to \(expected.reportURIs.isEmpty ? "no URI" : expected.reportURIs.joined(separator: ", ")) in \(file), \(actual.reportURIs.isEmpty ? "no URI" : actual.reportURIs.map(Output.value).joined(separator: ", ")) in \(against)"
        )
      }
      if expected.enforce != actual.enforce {
        lines.append(
          "\(host): pins are \(expected.enforce ? "enforced" : "report-only") in \(file), \(actual.enforce ? "enforced" : "report-only") in \(against)"
        )
      }
    }
    return lines
  }
}
