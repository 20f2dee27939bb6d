import CNPinning
import Foundation

/// What an exported file pins, per host, in the terms every format shares: what `cnpin lint
/// --against` compares. Read from a file with each format's own reader (Foundation's property
/// list parser, `MarkupElement` for XML, OkHttp's `.add(pattern, pins…)` calls), or from a fresh
/// `PinExport`.
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
  }

  let format: PinFormat
  /// Keyed by host name, lowercased.
  var hosts: [String: Host] = [:]

  /// What `export` writes.
  init(_ export: PinExport) {
    format = export.format
    for host in export.hosts {
      hosts[host.host.lowercased()] = Host(
        includesSubdomains: host.includesSubdomains,
        keys: Set(host.keys.filter { !$0.isLeaf || !export.format.carriesLeafScope }.map(\.spkiSHA256)),
        leafKeys: export.format.carriesLeafScope ? Set(host.keys.filter(\.isLeaf).map(\.spkiSHA256)) : [],
        expiration: export.format.carriesExpiry ? host.expirationDate.map(PinExport.day) : nil,
        enforce: export.format.carriesReportOnly ? host.enforce : true)
    }
  }

  private init(format: PinFormat) { self.format = format }

  /// Reads an exported file, telling its format from its content.
  static func read(_ data: Data, path: String) throws(CLIError) -> ExportedPins {
    let text = String(decoding: data, as: UTF8.self)
    if text.contains("<network-security-config") { return try networkSecurityConfig(data, path: path) }
    if text.contains("CertificatePinner") && !text.contains("<plist") { return okHttp(text) }
    let plist: Any
    do {
      plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      throw .usage("\(path) is no exported file cnpin reads (a property list, Network Security Config XML or OkHttp Kotlin)")
    }
    let root = plist as? [String: Any] ?? [:]
    if let domains = (root["NSAppTransportSecurity"] as? [String: Any])?["NSPinnedDomains"] as? [String: Any] {
      return nsPinnedDomains(domains)
    }
    if let domains = (root["TSKConfiguration"] as? [String: Any] ?? root)["kTSKPinnedDomains"] as? [String: Any] {
      return trustKit(domains)
    }
    throw .usage("\(path) is a property list with neither NSAppTransportSecurity › NSPinnedDomains nor kTSKPinnedDomains")
  }

  private static func identities(_ value: Any?) -> Set<String> {
    Set((value as? [Any] ?? []).compactMap { ($0 as? [String: Any])?["SPKI-SHA256-BASE64"] as? String })
  }

  private static func nsPinnedDomains(_ domains: [String: Any]) -> ExportedPins {
    var pins = ExportedPins(format: .nsPinnedDomains)
    for (name, value) in domains {
      let entry = value as? [String: Any] ?? [:]
      pins.hosts[name.lowercased()] = Host(
        includesSubdomains: entry["NSIncludesSubdomains"] as? Bool ?? false, keys: identities(entry["NSPinnedCAIdentities"]),
        leafKeys: identities(entry["NSPinnedLeafIdentities"]))
    }
    return pins
  }

  private static func trustKit(_ domains: [String: Any]) -> ExportedPins {
    var pins = ExportedPins(format: .trustKit)
    for (name, value) in domains {
      let entry = value as? [String: Any] ?? [:]
      pins.hosts[name.lowercased()] = Host(
        includesSubdomains: entry["kTSKIncludeSubdomains"] as? Bool ?? false,
        keys: Set(entry["kTSKPublicKeyHashes"] as? [String] ?? []), expiration: entry["kTSKExpirationDate"] as? String,
        enforce: entry["kTSKEnforcePinning"] as? Bool ?? true)
    }
    return pins
  }

  /// OkHttp: each `.add("pattern", "sha256/…", …)` outside comments; `**.host` is the host with
  /// its subdomains.
  private static func okHttp(_ text: String) -> ExportedPins {
    var pins = ExportedPins(format: .okHttp)
    let code = KotlinSource.stringsOutsideComments(text)
    var index = 0
    while index < code.count {
      defer { index += 1 }
      guard case .call("add") = code[index] else { continue }
      var arguments: [String] = []
      while index + 1 < code.count, case .string(let value) = code[index + 1] {
        arguments.append(value)
        index += 1
      }
      guard let pattern = arguments.first else { continue }
      let wildcard = pattern.hasPrefix("**.")
      let name = (wildcard ? String(pattern.dropFirst(3)) : pattern).lowercased()
      var host = pins.hosts[name] ?? Host()
      host.includesSubdomains = host.includesSubdomains || wildcard
      host.keys.formUnion(arguments.dropFirst().filter { $0.hasPrefix("sha256/") }.map { String($0.dropFirst(7)) })
      pins.hosts[name] = host
    }
    return pins
  }

  /// Each `domain-config`'s domains with the nearest `pin-set`: its own, else an enclosing
  /// config's (a nested config inherits its parent's).
  private static func networkSecurityConfig(_ data: Data, path: String) throws(CLIError) -> ExportedPins {
    let root: MarkupElement
    do {
      root = try MarkupElement.parse(String(decoding: data, as: UTF8.self))
    } catch {
      throw .usage("\(path):\(error.line): invalid XML: \(error.reason)")
    }
    var pins = ExportedPins(format: .networkSecurityConfig)
    root.walk { element, ancestors in
      guard element.name == "domain-config" else { return }
      let configs = [element] + ancestors.reversed().filter { $0.name == "domain-config" }
      let pinSet = configs.lazy.compactMap { $0.children.first { $0.name == "pin-set" } }.first
      let keys = pinSet?.children.filter { $0.name == "pin" && $0.attributes["digest"] == "SHA-256" }
        .map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
      for domain in element.children where domain.name == "domain" {
        pins.hosts[domain.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()] = Host(
          includesSubdomains: domain.attributes["includeSubdomains"] == "true", keys: Set(keys ?? []),
          expiration: pinSet?.attributes["expiration"])
      }
    }
    return pins
  }

  /// The differences, one line each, with the configuration's side first.
  func drift(from exported: ExportedPins, file: String, against: String) -> [String] {
    var lines: [String] = []
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
      if expected.enforce != actual.enforce {
        lines.append(
          "\(host): pins are \(expected.enforce ? "enforced" : "report-only") in \(file), \(actual.enforce ? "enforced" : "report-only") in \(against)"
        )
      }
    }
    return lines
  }
}
