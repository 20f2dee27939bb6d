import CNPinning
import CNPinningSession
import Foundation

/// A configuration resolved to public keys for a format that pins keys, not names (`cnpin
/// convert --to nspinneddomains|nsc|okhttp|trustkit`): each chain's CA links become the SPKI
/// SHA-256 of the CA certificates they match, SPKI pins are carried over, and what the format
/// cannot express is a finding with its host and path, never dropped in silence.
///
/// Decisions (docs/decisions/export.md): a root link, or one marked `mayBeAnchor`, and an
/// `exact` link take the keys of every certificate that matches it (given, or in the CA
/// catalogue with a current or backup status). A link that renames as its CA rotates (`prefix`,
/// `prefixWithNumber`, `suffix` below the anchors) takes the keys of every member of its family
/// only when the catalogue knows them all: the key of today's issuing CA alone would lock users
/// out at the next rotation, so otherwise that chain exports its anchor keys only, saying so.
struct PinExport {
  /// One exported key and whose it is.
  struct Key: Equatable {
    let spkiSHA256: String
    /// The certificate (or pin) the key comes from, and where that was read.
    let origin: String
    /// When the certificate with this key stops being valid, where known.
    var validUntil: Date?
    /// From an SPKI pin that applies to the leaf only.
    let isLeaf: Bool
  }

  /// One host's exported pins.
  struct Host {
    let host: String
    let includesSubdomains: Bool
    var keys: [Key]
    let expirationDate: Date?
    let enforce: Bool
    let reportURI: URL?
  }

  /// Something the format cannot carry (exit 1), or a remark about how it was carried.
  struct Finding: CustomStringConvertible {
    let path: String
    let message: String
    /// False when something of the configuration is not in the export.
    let carried: Bool

    var description: String { "\(carried ? "note" : "not carried"): \(path): \(message)" }
  }

  let format: PinFormat
  /// Whose keys the links of renaming CAs take.
  let catalogue: CACatalogue
  private(set) var hosts: [Host] = []
  private(set) var findings: [Finding] = []

  /// Resolves `document` for `format` against `pool`.
  init(_ document: CNPinningDocument, format: PinFormat, pool: CertificatePool, catalogue: CACatalogue, now: Date = Date()) {
    self.format = format
    self.catalogue = catalogue
    var seen = Set<String>()
    for entry in document.entries {
      let base =
        entry.isAppTransportSecurity
        ? "NSAppTransportSecurity.NSPinnedDomains[\(Self.quoted(entry.host))]" : "PinnedDomains[\(Self.quoted(entry.host))]"
      guard seen.insert(entry.host.lowercased()).inserted else {
        findings.append(Finding(path: base, message: "the host is pinned twice; the first entry is exported", carried: false))
        continue
      }
      if let host = resolve(entry, path: base, pool: pool, now: now) { hosts.append(host) }
    }
  }

  /// Whether everything of the configuration is in the export.
  var isComplete: Bool { findings.allSatisfy(\.carried) }

  /// The exported key whose certificate stops being valid first, and the keys with no known date.
  var soonestRotation: (key: Key?, undated: [Key]) {
    let keys = hosts.flatMap(\.keys)
    let dated = keys.filter { $0.validUntil != nil }.min { $0.validUntil! < $1.validUntil! }
    var undated: [Key] = []
    for key in keys where key.validUntil == nil && !undated.contains(where: { $0.spkiSHA256 == key.spkiSHA256 }) {
      undated.append(key)
    }
    return (dated, undated)
  }

  private mutating func resolve(_ entry: CNPinningDocument.Entry, path: String, pool: CertificatePool, now: Date) -> Host? {
    let configuration = entry.configuration
    if !configuration.enforce && !format.carriesReportOnly {
      findings.append(
        Finding(
          path: "\(path).enforce",
          message: "report-only pins cannot be carried: \(format.title) enforces every pin it holds; the host is left out",
          carried: false))
      return nil
    }
    var keys: [Key] = []
    func add(_ key: Key) {
      if let index = keys.firstIndex(where: { $0.spkiSHA256 == key.spkiSHA256 }) {
        if keys[index].validUntil == nil { keys[index].validUntil = key.validUntil }
      } else {
        keys.append(key)
      }
    }
    if let problem = format.refusal(ofHost: entry.host, includesSubdomains: configuration.includesSubdomains) {
      findings.append(Finding(path: path, message: "\(problem); the host is left out", carried: false))
      return nil
    }
    // Key pins beside chains: every chain CNPinning accepts carries one of them, so they alone are
    // exported (the chains' CA keys would let in a chain the key pins refuse).
    let keyPinned = !configuration.spkiPins.isEmpty
    for (index, chain) in configuration.chains.enumerated() {
      let chainPath = "\(path).chainSet[\(index)]"
      if let leaf = chain.links.last, chain.links.count > 1, let reason = Self.unsatisfiableOnHost(leaf, host: entry.host) {
        findings.append(Finding(path: "\(chainPath)[\(chain.links.count - 1)]", message: reason, carried: false))
      }
      if keyPinned { continue }
      resolve(chain, host: entry.host, configuration, path: chainPath, pool: pool, now: now).forEach(add)
    }
    if keyPinned && !configuration.chains.isEmpty {
      findings.append(
        Finding(
          path: "\(path).chainSet",
          message:
            "the CN chains are not carried: the host also pins keys (spkiPins), which every chain CNPinning accepts carries, so those keys alone are exported; \(format.title) then accepts a chain with a pinned key whatever its names",
          carried: true))
    }
    let scopes = Set(configuration.spkiPins.map(\.scope))
    let sharedSet = format == .nsPinnedDomains ? scopes.subtracting([.leaf]) : scopes
    if sharedSet.count > 1 {
      findings.append(
        Finding(
          path: "\(path).spkiPins",
          message:
            "the pins of each scope (\(scopes.map(\.rawValue).sorted().joined(separator: ", "))) must all find a match, and \(format.title) asks one match of a single set: exported together they would accept a chain that matches one scope alone",
          carried: false))
    }
    for (index, pin) in configuration.spkiPins.enumerated() {
      let pinPath = "\(path).spkiPins[\(index)]"
      if pin.scope == .leaf && !format.carriesLeafScope {
        findings.append(
          Finding(
            path: pinPath, message: "applies to the leaf only; \(format.title) matches it on any certificate", carried: true))
      }
      if pin.scope == .any && format == .nsPinnedDomains {
        findings.append(
          Finding(
            path: pinPath,
            message: "applies to any certificate; carried in NSPinnedCAIdentities, which ATS matches on CA certificates only",
            carried: true))
      }
      add(
        Key(
          spkiSHA256: pin.sha256Base64, origin: pinPath, validUntil: pool.validUntil(of: pin.sha256Base64),
          isLeaf: pin.scope == .leaf))
    }
    for index in configuration.certificatePins.indices {
      findings.append(
        Finding(
          path: "\(path).certificatePins[\(index)]",
          message:
            "a whole-certificate pin has no equivalent in \(format.title), which pins keys: pin the certificate's key in spkiPins",
          carried: false))
    }
    if let expirationDate = configuration.expirationDate, !format.carriesExpiry {
      findings.append(
        Finding(
          path: "\(path).expirationDate",
          message: "\(format.title) has no expiry: the exported pins stay enforced after \(Self.day(expirationDate))",
          carried: true))
    }
    if configuration.reportURI != nil && !format.carriesReportURI {
      findings.append(Finding(path: "\(path).reportURI", message: "\(format.title) sends no failure reports", carried: true))
    }
    switch keys.count {
    case 0:
      findings.append(Finding(path: path, message: "no key to export; the host is left out", carried: false))
      return nil
    case 1:
      findings.append(
        Finding(
          path: path,
          message:
            "the host ends with a single key (\(keys[0].origin)): its rotation locks every client out; add a backup chain or an SPKI pin (\(format.title) wants two)",
          carried: false))
    default: break
    }
    return Host(
      host: entry.host, includesSubdomains: configuration.includesSubdomains, keys: keys,
      expirationDate: configuration.expirationDate,
      enforce: configuration.enforce, reportURI: configuration.reportURI)
  }

  /// The keys of one chain's CA links; the leaf link is carried by the platform's host-name check
  /// when it names the host, and reported otherwise.
  private mutating func resolve(
    _ chain: CNChain, host: String, _ configuration: CNConfiguration, path: String, pool: CertificatePool, now: Date
  ) -> [Key] {
    let leaf = chain.links.count - 1
    if chain.links.count == 1 {
      findings.append(
        Finding(
          path: path, message: "a leaf-only chain (\(chain.links[0])) names no CA whose key could be exported", carried: false))
      return []
    }
    if !Self.hostNameCheckCarries(chain.links[leaf], host: host, includesSubdomains: configuration.includesSubdomains) {
      findings.append(
        Finding(
          path: "\(path)[\(leaf)]",
          message:
            "the leaf rule \(chain.links[leaf]) is not carried: \(format.title) pins keys, and the host-name check does not stand in for it",
          carried: false))
    }
    var anchorKeys: [Key] = []
    var otherKeys: [Key] = []
    var familyUnknown: [Int] = []
    for index in 0..<leaf {
      let link = chain.links[index]
      let isAnchor = index == 0 || link.mayBeAnchor
      let given = pool.matching(link, at: now).map {
        Key(
          spkiSHA256: $0.certificate.spkiSHA256Base64, origin: "\($0.name) (\($0.origin))",
          validUntil: $0.certificate.notValidAfter, isLeaf: false)
      }
      let catalogued = Self.catalogued(matching: link, in: catalogue)
      let known = catalogued.compactMap { member in
        member.certificate.spkiSHA256.map { spki in
          Key(
            spkiSHA256: spki,
            origin: "\(member.certificate.name) (CA catalogue: \(member.certificate.status.rawValue), \(member.family))",
            validUntil: member.certificate.validUntil.flatMap(Self.date) ?? pool.validUntil(of: spki), isLeaf: false)
        }
      }
      if !isAnchor && link.type != .exact && (catalogued.isEmpty || known.count < catalogued.count) {
        familyUnknown.append(index)
        continue
      }
      let keys = given + known
      if keys.isEmpty {
        findings.append(
          Finding(
            path: "\(path)[\(index)]",
            message: "no certificate given matches \(link): pass its CA with --cafile or --chain", carried: false))
      }
      if isAnchor { anchorKeys += keys } else { otherKeys += keys }
    }
    for index in familyUnknown {
      findings.append(
        Finding(
          path: "\(path)[\(index)]",
          message:
            "\(chain.links[index]) names a CA that renames as it rotates, and the CA catalogue does not know every member's key: only the chain's anchor keys are exported (the current member's key alone would lock users out at its rotation)",
          carried: true))
    }
    return anchorKeys + otherKeys
  }

  /// Whether the platform's host-name check implies the leaf link: a `subjectAltName` link that
  /// names the host (not its subdomains), or a `.domain` the host is below.
  static func hostNameCheckCarries(_ link: CNChainLink, host: String, includesSubdomains: Bool) -> Bool {
    guard link.type == .subjectAltName else { return false }
    let value = link.value.lowercased()
    let name = host.lowercased()
    if value.hasPrefix(".") { return name.hasSuffix(value) }
    return value == name && !includesSubdomains
  }

  /// Why a leaf link refuses every leaf valid only for `host`, or nil: a `.domain` link on the
  /// domain's own name asks for a name below it, which such a leaf does not have. A key format
  /// would accept that leaf (the host-name check passes it), so this is never carried.
  static func unsatisfiableOnHost(_ link: CNChainLink, host: String) -> String? {
    guard link.type == .subjectAltName, link.value.hasPrefix("."), "." + host.lowercased() == link.value.lowercased() else {
      return nil
    }
    return
      "the leaf rule \(link) asks for a name below \(link.value.dropFirst()), so it refuses every leaf valid only for \(host) itself; an export would accept such a leaf"
  }

  /// The catalogue's current and backup certificates whose names satisfy `link`, one per key
  /// (a cross-signed root and the root itself share a key).
  static func catalogued(matching link: CNChainLink, in catalogue: CACatalogue)
    -> [(certificate: CACatalogue.Certificate, family: String)]
  {
    var found: [(CACatalogue.Certificate, String)] = []
    for family in catalogue.families {
      for certificate in family.certificates
      where (certificate.status == .current || certificate.status == .backup) && link.matches(commonName: certificate.name)
        && !found.contains(where: { $0.0.name == certificate.name && $0.0.spkiSHA256 == certificate.spkiSHA256 })
      {
        found.append((certificate, family.title))
      }
    }
    return found
  }

  static func quoted(_ key: String) -> String { VisibleText.quoted(key, as: .json) }

  /// `YYYY-MM-DD` in UTC.
  static func day(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: date)
  }

  /// The end of day `text` (`YYYY-MM-DD`) in UTC.
  static func date(_ text: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.date(from: text).map { $0.addingTimeInterval(86_399) }
  }
}

/// The formats `cnpin convert --to` exports keys to.
enum PinFormat: String, CaseIterable {
  case nsPinnedDomains = "nspinneddomains"
  case networkSecurityConfig = "nsc"
  case okHttp = "okhttp"
  case trustKit = "trustkit"

  var title: String {
    switch self {
    case .nsPinnedDomains: return "NSPinnedDomains"
    case .networkSecurityConfig: return "Android's Network Security Config"
    case .okHttp: return "OkHttp's CertificatePinner"
    case .trustKit: return "TrustKit"
    }
  }

  var carriesExpiry: Bool { self == .networkSecurityConfig || self == .trustKit }

  /// Why the format's reader refuses `host` as a pinned domain, or nil. TrustKit raises at start
  /// for a domain outside the public suffix list's registries and for includeSubdomains on a
  /// public suffix (`parse_configuration.m`, `GetRegistryLength`).
  func refusal(ofHost host: String, includesSubdomains: Bool) -> String? {
    guard self == .trustKit else { return nil }
    let name = host.lowercased()
    guard let suffix = PublicSuffixList.listedSuffix(of: name), !name.contains(":"),
      name.split(separator: ".").contains(where: { $0.contains { !$0.isNumber } })
    else {
      return
        "TrustKit refuses \(host): its domain registry knows no public suffix for it (an IP address, a single label, or a top-level domain outside the public suffix list such as .test), and it raises at start"
    }
    if includesSubdomains && suffix == name {
      return "TrustKit refuses includeSubdomains for \(host), a public suffix, and raises at start"
    }
    return nil
  }
  var carriesReportOnly: Bool { self == .trustKit }
  var carriesReportURI: Bool { self == .trustKit }
  var carriesLeafScope: Bool { self == .nsPinnedDomains }
}
