import Foundation

/// One lint finding about a configuration.
public struct CNLintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
  /// How serious a finding is; errors sort first.
  public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    /// The configuration does not load, or pins nothing where it seems to.
    case error
    /// The configuration loads but risks failing open or locking users out.
    case warning
    /// Worth knowing; often intended.
    case note

    private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
  }

  /// How serious the finding is.
  public let severity: Severity
  /// The element the finding is about (empty for the whole document).
  public let path: String
  /// What is wrong and how to fix it.
  public let message: String

  /// A finding about the element at `path` (empty for the whole document).
  public init(severity: Severity, path: String, message: String) {
    self.severity = severity
    self.path = path
    self.message = message
  }

  public var description: String { "\(severity.rawValue): \(path.isEmpty ? "" : "\(path): ")\(message)" }
}

/// Static checks for configurations that fail open (pin less than they seem to) or lock users
/// out (break at the next certificate rotation).
public enum CNConfigurationLinter: Sendable {
  /// Prefix values shorter than this accept almost any CA name.
  public static let minimumPrefixLength = 4

  /// Expiration dates closer than this are warned about.
  public static let expiryWarningInterval: TimeInterval = 30 * 24 * 3600

  /// The findings for a property-list or JSON document, errors first, then in document order.
  /// `now` is the moment expiration dates are judged against. With `trustAnchors`, every
  /// chain's root link must match one of them or of `futureAnchors` (roots stores are about to
  /// carry; an error otherwise, naming the closest anchors), and `NSPinnedCAIdentities` that are
  /// no anchor's key are warned about. A chain that the host's SPKI or certificate pins refuse
  /// (every pinned key or certificate known, by the anchors or the CA catalogue, and none of them
  /// named by the chain's CA links) is an error. Each of `hosts` (the hosts the app talks to)
  /// that the document does not pin is reported: an error when a pinned domain is a small edit
  /// away (a typo leaves its requests unpinned), a warning otherwise. With `rehearse`, each shape
  /// of a catalogued CA (`cnpin lint --rehearse`) that a host's chainSet refuses is a warning.
  public static func lint(
    data: Data, source: String? = nil, now: Date = Date(), trustAnchors: [CNCertificate]? = nil,
    futureAnchors: [CNCertificate] = [], hosts: [String] = [], rehearse: Bool = false
  ) -> [CNLintFinding] {
    lint(
      data: data, source: source, now: now, trustAnchors: trustAnchors, futureAnchors: futureAnchors, hosts: hosts,
      rehearse: rehearse, catalogue: .compiledIn)
  }

  /// `lint(data:…)` with another CA catalogue (`cnpin lint --catalogue FILE`).
  package static func lint(
    data: Data, source: String? = nil, now: Date = Date(), trustAnchors: [CNCertificate]? = nil,
    futureAnchors: [CNCertificate] = [], hosts: [String] = [], rehearse: Bool = false, catalogue: CACatalogue
  ) -> [CNLintFinding] {
    let document: CNPinningDocument
    do {
      document = try CNPinningDocument(data: data, source: source)
    } catch let error as CNConfigurationError {
      return error.problems.map { CNLintFinding(severity: .error, path: $0.path, message: $0.message) }
    } catch {
      return [CNLintFinding(severity: .error, path: "", message: "\(error)")]
    }
    return lint(
      document, now: now, trustAnchors: trustAnchors, futureAnchors: futureAnchors, hosts: hosts, rehearse: rehearse,
      catalogue: catalogue)
  }

  /// The findings for a loaded document (see ``lint(data:source:now:trustAnchors:futureAnchors:hosts:rehearse:)``).
  public static func lint(
    _ document: CNPinningDocument, now: Date = Date(), trustAnchors: [CNCertificate]? = nil,
    futureAnchors: [CNCertificate] = [], hosts: [String] = [], rehearse: Bool = false
  ) -> [CNLintFinding] {
    lint(
      document, now: now, trustAnchors: trustAnchors, futureAnchors: futureAnchors, hosts: hosts, rehearse: rehearse,
      catalogue: .compiledIn)
  }

  /// `lint(_:…)` with another CA catalogue.
  package static func lint(
    _ document: CNPinningDocument, now: Date = Date(), trustAnchors: [CNCertificate]? = nil,
    futureAnchors: [CNCertificate] = [], hosts: [String] = [], rehearse: Bool = false, catalogue: CACatalogue
  ) -> [CNLintFinding] {
    var findings = document.warnings.map { CNLintFinding(severity: .warning, path: $0.path, message: $0.message) }
    let parents = SubdomainParents(document)
    let anchors = trustAnchors.map { Anchors($0, future: futureAnchors) }
    let known = KnownCertificates((trustAnchors ?? []) + futureAnchors, catalogue: catalogue)
    for entry in document.entries {
      let path = self.path(entry)
      findings += lint(entry, path: path, anchors: anchors)
      findings += expiry(entry.configuration, path: "\(path).expirationDate", now: now)
      findings += shadowing(entry, parents: parents)
      if let anchors { findings += anchorFindings(entry, path: path, anchors: anchors) }
      findings += pinFindings(entry, path: path, known: known)
      if rehearse { findings += rehearsal(entry, path: path, catalogue: catalogue, now: now) }
    }
    findings += unpinned(hosts, in: document)
    return findings.enumerated().sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }
      .map(\.element)
  }

  /// The hosts of `hosts` that `document` leaves unpinned, each named with the pinned domain it
  /// nearly spells.
  private static func unpinned(_ hosts: [String], in document: CNPinningDocument) -> [CNLintFinding] {
    guard !hosts.isEmpty else { return [] }
    let manager = CNPinningManager(document: document)
    return hosts.compactMap { host in
      if case .failure(let invalid) = HostName.parse(host) {
        return CNLintFinding(
          severity: .error, path: "", message: "\(VisibleText.quoted(host)) is not a host name: \(invalid.reason)")
      }
      guard manager.configuration(for: host) == nil else { return nil }
      if let hint = manager.nearMiss(for: host) {
        return CNLintFinding(severity: .error, path: "", message: "\(host) is not pinned, but \(hint)")
      }
      return CNLintFinding(
        severity: .warning, path: "", message: "\(host) is not pinned: its connections get the normal TLS checks only")
    }
  }

  /// Where an entry sits in its document.
  private static func path(_ entry: CNPinningDocument.Entry) -> String {
    ConfigPath(entry.isAppTransportSecurity ? "NSAppTransportSecurity.NSPinnedDomains" : "PinnedDomains")
      .entry(entry.host).description
  }

  private static func lint(_ entry: CNPinningDocument.Entry, path: String, anchors: Anchors?) -> [CNLintFinding] {
    var findings: [CNLintFinding] = []
    let chains = entry.configuration.chains
    if chains.count == 1 {
      findings.append(
        CNLintFinding(
          severity: .warning, path: "\(path).chainSet",
          message:
            "only one chain: when the CA changes its hierarchy every client is locked out; add the next chain as a backup (cnpin pins --chain NEXT.pem --host \(entry.host) --add-to FILE) and rehearse it before the switch (cnpin check --config FILE --chain NEXT.pem)"
        ))
    }
    for (chainIndex, chain) in chains.enumerated() {
      let chainPath = "\(path).chainSet[\(chainIndex)]"
      if chain.shapes.count > 1 {
        let shapes = chain.shapes.map { "\($0.links.count): from \(VisibleText.quoted($0.links[0].value))" }
        findings.append(
          CNLintFinding(
            severity: .note, path: chainPath,
            message:
              "stands for \(chain.shapes.count) shapes, one per root a store may verify it from (certificates \(shapes.joined(separator: "; ")))"
          ))
      }
      if chain.links.count > 1, chain.links[0].mayBeAnchor {
        findings.append(
          CNLintFinding(
            severity: .note, path: "\(chainPath)[0].mayBeAnchor",
            message: "the first link is always where the chain may start; mayBeAnchor adds nothing there"))
      }
      if isWrittenLeafFirst(chain, host: entry.host) {
        findings.append(
          CNLintFinding(
            severity: .error, path: chainPath,
            message:
              "the chain starts with the host's own name and ends with a CA's: chains are written root → leaf, so this one can never match; reverse it"
          ))
      }
      if chain.links.count == 1 {
        findings.append(
          CNLintFinding(
            severity: .warning, path: chainPath,
            message: "a chain of one link matches only a self-signed certificate; verified chains end with their root"))
      }
      for (linkIndex, link) in chain.links.enumerated() {
        let linkPath = "\(chainPath)[\(linkIndex)]"
        let isLeaf = linkIndex == chain.links.count - 1 && chain.links.count > 1
        findings += lint(link, path: linkPath, isLeaf: isLeaf, anchors: anchors)
      }
      if chain.links.count > 1, let leaf = chain.links.last, let finding = domainLinkOnItsOwnName(leaf, entry) {
        findings.append(
          CNLintFinding(severity: finding.severity, path: "\(chainPath)[\(chain.links.count - 1)]", message: finding.message))
      }
    }
    return findings
  }

  /// A ``subjectAltName`` `.domain` leaf link on the domain's own name: it asks for a name below
  /// the domain, so a leaf valid only for the host never satisfies it (an error when only the
  /// host is pinned; with subdomains, the host itself is the one locked out).
  private static func domainLinkOnItsOwnName(_ link: CNChainLink, _ entry: CNPinningDocument.Entry)
    -> (severity: CNLintFinding.Severity, message: String)?
  {
    guard link.type == .subjectAltName, link.value.hasPrefix("."),
      case .success(let host) = HostName.parse(entry.host), "." + host.normalized == link.value.lowercased()
    else { return nil }
    let message =
      "subjectAltName \(VisibleText.quoted(link.value)) asks for a name below \(host.normalized), so a leaf valid only for \(host.normalized) itself never satisfies it; pin \(VisibleText.quoted(host.normalized)) for the host"
    return entry.configuration.includesSubdomains
      ? (.warning, message + " (its subdomains match)") : (.error, message)
  }

  /// Whether `chain` reads leaf → root: its first link names the host and its last does not.
  private static func isWrittenLeafFirst(_ chain: CNChain, host: String) -> Bool {
    guard chain.links.count > 1, let first = chain.links.first, let last = chain.links.last else { return false }
    func namesHost(_ link: CNChainLink) -> Bool {
      let value = link.value.lowercased()
      let bare = value.hasPrefix(".") ? String(value.dropFirst()) : value
      guard bare.contains("."), !bare.contains(" ") else { return false }
      return host.lowercased() == bare || host.lowercased().hasSuffix("." + bare)
    }
    return namesHost(first) && !namesHost(last)
  }

  private static func lint(_ link: CNChainLink, path: String, isLeaf: Bool, anchors: Anchors?) -> [CNLintFinding] {
    whitespace(link, path: path, anchors: anchors) + kind(link, path: path, isLeaf: isLeaf)
  }

  /// Whitespace only where it cannot match. A `prefix` or ``prefixWithNumber`` value may end with a
  /// space that is part of the name (`"Amazon Root CA "` before the `1`), which is what
  /// `cnpin pins` suggests; leading whitespace, and trailing whitespace on an `exact` or `suffix`
  /// value that no trust anchor's name has, is a mistake.
  private static func whitespace(_ link: CNChainLink, path: String, anchors: Anchors?) -> [CNLintFinding] {
    let value = link.value
    let quoted = "\"\(VisibleText.escaped(value))\""
    if value.first?.isWhitespace == true {
      return [
        CNLintFinding(
          severity: .warning, path: "\(path).value",
          message: "\(quoted) starts with whitespace, which no certificate's name does; remove it")
      ]
    }
    guard value.last?.isWhitespace == true, link.type == .exact || link.type == .suffix else { return [] }
    if let anchors, anchors.commonNames.contains(where: { link.matches(commonName: $0) }) { return [] }
    return [
      CNLintFinding(
        severity: .warning, path: "\(path).value",
        message:
          "\(quoted) ends with whitespace, which \(anchors == nil ? "a certificate's name almost never does" : "no trust anchor's name does"), so \(link.type.rawValue) cannot match it; remove it"
      )
    ]
  }

  private static func kind(_ link: CNChainLink, path: String, isLeaf: Bool) -> [CNLintFinding] {
    switch link.type {
    case .suffix where !link.value.hasPrefix("."):
      return [
        CNLintFinding(
          severity: .warning, path: "\(path).value",
          message:
            "suffix \"\(link.value)\" has no dot boundary, so it also matches \"evil\(link.value)\"; write \".\(link.value)\" or use exact"
        )
      ]
    case .prefix where link.value.count < minimumPrefixLength:
      return [
        CNLintFinding(
          severity: .warning, path: "\(path).value",
          message: "prefix \"\(link.value)\" is so short that it accepts almost any name; pin more of the name")
      ]
    case .prefixWithNumber where link.value.count < 2:
      return [
        CNLintFinding(
          severity: .note, path: "\(path).value",
          message:
            "prefixWithNumber \"\(link.value)\" accepts any name that is \"\(link.value)\" and digits; make sure the other links pin the issuer"
        )
      ]
    case .exact where !isLeaf:
      // A name in which nothing is numbered (`Root YE`) has no next name to break at.
      let scheme = SuggestedPins.NamingScheme(of: link.value)
      guard scheme != .fixed, let suggested = try? scheme.link(for: link.value) else { return [] }
      return [
        CNLintFinding(
          severity: .warning, path: "\(path).type",
          message:
            "exact \"\(link.value)\" on a CA certificate breaks at the CA's next rotation; \(suggested) accepts the CA's next names"
        )
      ]
    case .exact where isLeaf:
      return [
        CNLintFinding(
          severity: .warning, path: "\(path).type",
          message:
            "exact \"\(link.value)\" on the leaf's Common Name breaks when a renewal drops the CN (Let's Encrypt's tlsserver and shortlived profiles issue none) or names the certificate otherwise (a load balancer's name); write subjectAltName \"\(link.value)\" to pin the leaf by the names it is valid for"
        )
      ]
    case .prefix where isLeaf, .suffix where isLeaf, .prefixWithNumber where isLeaf:
      return [
        CNLintFinding(
          severity: .note, path: "\(path).type",
          message:
            "\(link.type.rawValue) on the leaf reads its Common Name, which 2026's certificate profiles drop; a subjectAltName link reads the names it is valid for"
        )
      ]
    default:
      return []
    }
  }

  private static func expiry(_ configuration: CNConfiguration, path: String, now: Date) -> [CNLintFinding] {
    guard let date = configuration.expirationDate else { return [] }
    let formatted = ISO8601.string(from: date)
    if date <= now {
      return [
        CNLintFinding(
          severity: .warning, path: path,
          message: "expired at \(formatted): this host is no longer pinned; renew the pins or remove the date")
      ]
    }
    if date.timeIntervalSince(now) < expiryWarningInterval {
      let days = Int(date.timeIntervalSince(now) / 86400)
      return [
        CNLintFinding(
          severity: .warning, path: path,
          message: "expires at \(formatted), in \(days) day\(days == 1 ? "" : "s"): ship renewed pins before then")
      ]
    }
    return []
  }

  /// The entries that include their subdomains, by normalised name, so that each host's parents
  /// are found by walking its own labels rather than by comparing it with every entry.
  private struct SubdomainParents {
    private var byName: [String: [(index: Int, entry: CNPinningDocument.Entry)]] = [:]

    init(_ document: CNPinningDocument) {
      for (index, entry) in document.entries.enumerated()
      where entry.configuration.includesSubdomains && !entry.name.isIPAddress {
        byName[entry.name.normalized, default: []].append((index, entry))
      }
    }

    /// The entries `host` is a subdomain of, in document order.
    func of(_ host: String) -> [CNPinningDocument.Entry] {
      var found: [(index: Int, entry: CNPinningDocument.Entry)] = []
      var rest = host[...]
      while let dot = rest.firstIndex(of: ".") {
        rest = rest[rest.index(after: dot)...]
        found += byName[String(rest)] ?? []
      }
      return found.sorted { $0.index < $1.index }.map(\.entry)
    }
  }

  /// A configured host below a domain that includes subdomains takes that subtree for itself.
  private static func shadowing(_ entry: CNPinningDocument.Entry, parents: SubdomainParents) -> [CNLintFinding] {
    guard !entry.name.isIPAddress else { return [] }
    let host = entry.name.normalized
    return parents.of(host).map { parent in
      let subtree = entry.configuration.includesSubdomains ? "\(host) and its subdomains use" : "\(host) uses"
      return CNLintFinding(
        severity: .note, path: path(entry),
        message: "shadows \(path(parent)) (includesSubdomains): \(subtree) only these pins")
    }
  }
}
