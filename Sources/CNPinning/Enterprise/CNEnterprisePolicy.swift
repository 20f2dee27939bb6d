import Foundation

/// A verified enterprise policy: the pins it adds per host (or for every pinned host, `"*"`),
/// and the window in which it applies.
///
/// The payload is JSON: `iat` and `exp` (NumericDate, required), `nbf` (optional), the standard
/// claims `iss`, `sub`, `aud`, `jti` (tolerated), one key per host or `"*"`, each an array of
/// chains written root → leaf as in configuration files, and `reportOnly` (optional): an object
/// of host → NumericDate, each host's pin failures only reported, not enforced, until that time
/// (never past `exp`), the usual first response to a lockout. The reader of CNPinning 0.1.0 reads
/// `reportOnly` as a host and refuses the policy whole.
///
/// A policy chain satisfies a host's chain pins only: the host's own key pins (``spkiPins``,
/// `certificatePins`) still apply to a connection the policy's chain accepts, unless the policy
/// carries its own for the host (``spkiPins``: host or `"*"` → pins written as in configuration
/// files, which then replace the app's key pins on that route), or says in a signed field that it
/// drops them (``dropsKeyPins``: an array of hosts or `"*"`: an inspection proxy's policy, accepted
/// by names alone). The reader of CNPinning 0.1.0 knows neither, and refuses the policy whole.
public struct CNEnterprisePolicy: Sendable, Equatable {
  /// Tokens larger than this are refused unread.
  public static let maximumTokenSize = 256 * 1024
  static let standardClaims: Set<String> = ["iat", "exp", "nbf", "iss", "sub", "aud", "jti"]

  /// The algorithm the token was signed with (its `alg` header).
  public let algorithm: CNJWSAlgorithm
  /// When the policy was issued (`iat`); anti-rollback compares it.
  public let issuedAt: Date
  /// When the policy stops applying (`exp`).
  public let expiry: Date
  /// When the policy starts applying (`nbf`), if it says.
  public let notBefore: Date?
  /// The chains per host as written in the payload (`"*"` included).
  public let chains: [String: [CNChain]]
  /// Until when each host's pin failures are only reported (`reportOnly`), by host as written.
  public let reportOnlyUntil: [String: Date]
  /// The audiences the policy names (`aud`: a string or an array of strings); empty when none.
  public let audience: [String]
  /// The policy's own key pins per host as written (`"*"` included): on the policy's route they
  /// replace the host's key pins.
  public let spkiPins: [String: [CNSPKIPin]]
  /// The hosts (as written, `"*"` included) whose key pins the policy drops on its route, signed.
  public let dropsKeyPins: [String]
  /// The same, by normalised host.
  let reportOnlyByHost: [String: Date]
  /// Remarks such as links without a type.
  public let warnings: [CNConfigurationWarning]
  /// SHA-256 of the policy's content in a canonical form (window and chains, hosts sorted),
  /// base64: tells two policies with the same `iat` apart, however their JSON was formatted.
  public let contentSHA256: String
  /// A host's chains as written, and which key pins apply along them.
  struct HostChains: Sendable, Equatable {
    let chains: [CNChain]
    let keyPins: KeyPins
  }

  /// The key pins a connection the policy's chain accepts must still satisfy.
  enum KeyPins: Sendable, Equatable {
    /// The host's own (`spkiPins` and `certificatePins` of the app's configuration).
    case app
    /// The policy's, in place of the host's.
    case own([CNSPKIPin])
    /// None: the policy drops them, in a signed field.
    case dropped
  }

  /// Chains by normalised host, and for `"*"`.
  let byHost: [String: [CNChain]]
  let wildcard: [CNChain]?
  /// The policy's key pins by normalised host, and for `"*"`.
  let keyPinsByHost: [String: [CNSPKIPin]]
  let dropsKeyPinsByHost: Set<String>

  /// Verifies `token` with `key` and reads its payload. The policy must be valid at `date`
  /// (its window widened by `clockSkew` seconds on each side).
  public init(token: Data, key: CNPolicySigningKey, at date: Date = Date(), clockSkew: TimeInterval = 0)
    throws(CNPolicyError)
  {
    let jws = try CompactJWS.verify(token, key: key)
    algorithm = jws.algorithm
    let (reader, issuedAt, expiry) = try Self.read(payload: jws.payload)
    self.issuedAt = issuedAt
    self.expiry = expiry
    self.notBefore = reader.notBefore
    self.chains = reader.chains
    self.reportOnlyUntil = reader.reportOnly
    self.reportOnlyByHost = reader.reportOnlyByHost
    self.spkiPins = reader.spkiPins
    self.dropsKeyPins = reader.dropsKeyPins
    self.audience = reader.audience
    self.keyPinsByHost = reader.keyPinsByHost
    self.dropsKeyPinsByHost = reader.dropsKeyPinsByHost
    self.warnings = reader.loader.warnings
    self.byHost = reader.byHost
    self.wildcard = reader.chains["*"]
    self.contentSHA256 = Self.contentDigest(
      issuedAt: issuedAt, expiry: expiry, notBefore: reader.notBefore, chains: reader.chains,
      reportOnly: reader.reportOnly, spkiPins: reader.spkiPins, dropsKeyPins: reader.dropsKeyPins,
      audience: reader.audience)
    if date < start - clockSkew { throw .notYetValid(start) }
    if date >= expiry + clockSkew { throw .expired(expiry) }
  }

  /// Reads a payload as verification does: strict JSON (no repeated key), `iat` and `exp`, and
  /// chains with every problem named.
  fileprivate static func read(payload bytes: [UInt8]) throws(CNPolicyError) -> (PayloadReader, issuedAt: Date, expiry: Date) {
    let payload: ConfigValue
    do {
      payload = try StrictJSON.parse(bytes)
    } catch {
      throw .invalidPayload([CNConfigurationError.Problem.malformedDocument(error.description).at("payload")])
    }
    var reader = PayloadReader()
    reader.read(payload)
    guard reader.loader.problems.isEmpty, let issuedAt = reader.issuedAt, let expiry = reader.expiry else {
      throw .invalidPayload(reader.loader.problems)
    }
    return (reader, issuedAt, expiry)
  }

  /// Checks a payload before it is signed: throws `invalidPayload` with every problem that
  /// verification would find in it (the signature and the time window aside), so that nothing is
  /// signed that verification then refuses. `cnpin policy sign` checks with it.
  public static func validatePayload(_ payload: Data) throws(CNPolicyError) {
    _ = try read(payload: Array(payload))
  }

  /// What a payload that ``validatePayload(_:)`` accepts uses that the reader of CNPinning 0.1.0
  /// does not know (`subjectAltName` links, `mayBeAnchor` even set to false, `reportOnly`,
  /// `spkiPins`, `dropsKeyPins`), in words;
  /// such a reader refuses the policy whole, so the app's own pins stay in force
  /// (docs/decisions/enterprise.md).
  package static func newerFeatures(ofPayload payload: Data) throws(CNPolicyError) -> [String] {
    let reader = try read(payload: Array(payload)).0
    let links = reader.chains.values.joined().flatMap(\.links)
    return (links.contains { $0.type == .subjectAltName } ? ["subjectAltName links"] : [])
      + (reader.loader.readsMayBeAnchor ? ["mayBeAnchor"] : [])
      + (reader.reportOnly.isEmpty ? [] : ["reportOnly"])
      + (reader.spkiPins.isEmpty ? [] : ["spkiPins"]) + (reader.dropsKeyPins.isEmpty ? [] : ["dropsKeyPins"])
  }

  /// What a payload that `validatePayload` accepts does to each host's key pins along its chains,
  /// one line per host (`cnpin policy sign` and `rescue` print them).
  package static func keyPinEffects(ofPayload payload: Data) throws(CNPolicyError) -> [String] {
    let reader = try read(payload: Array(payload)).0
    return reader.chains.keys.sorted().map { host in
      "\(host): "
        + keyPinEffect(
          normalized: normalized(host), keyPinsByHost: reader.keyPinsByHost, dropsKeyPinsByHost: reader.dropsKeyPinsByHost)
    }
  }

  /// What this policy does to `host`'s key pins along its chains (`host` as the payload writes it).
  package func keyPinEffect(forHostAsWritten host: String) -> String {
    Self.keyPinEffect(normalized: Self.normalized(host), keyPinsByHost: keyPinsByHost, dropsKeyPinsByHost: dropsKeyPinsByHost)
  }

  private static func normalized(_ host: String) -> String {
    host == "*" ? "*" : (try? HostName.parse(host).get())?.normalized ?? host
  }

  private static func keyPinEffect(normalized host: String, keyPinsByHost: [String: [CNSPKIPin]], dropsKeyPinsByHost: Set<String>)
    -> String
  {
    if let pins = keyPinsByHost[host] ?? keyPinsByHost["*"] {
      return "along the policy's chains, its own \(pins.count) key pin(s) replace the host's spkiPins and certificatePins"
    }
    if dropsKeyPinsByHost.contains(host) || dropsKeyPinsByHost.contains("*") {
      return "along the policy's chains, the host's key pins are DROPPED (dropsKeyPins): names alone judge them"
    }
    return "along the policy's chains, the host's own key pins (spkiPins, certificatePins) still apply"
  }

  /// When a policy token says it stops applying (`exp`), read WITHOUT verifying its signature:
  /// for warnings about a policy file that is about to lapse (`cnpin lint --warn-days`), never
  /// for deciding anything. Throws when the token or its payload cannot be read.
  package static func unverifiedExpiry(of token: Data) throws(CNPolicyError) -> Date {
    guard token.count <= maximumTokenSize else { throw .tooLarge(token.count) }
    let text = String(decoding: token, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let segments = text.split(separator: ".", omittingEmptySubsequences: false)
    guard segments.count == 3 else {
      throw .malformedToken("it has \(segments.count) segments separated by \".\"; a compact JWS has 3")
    }
    guard let payload = Base64URL.decode(segments[1]) else { throw .malformedToken("the payload is not base64url") }
    return try read(payload: payload).expiry
  }

  /// SHA-256 of a canonical text of the content: one line per fact, hosts sorted, chains in order.
  private static func contentDigest(
    issuedAt: Date, expiry: Date, notBefore: Date?, chains: [String: [CNChain]], reportOnly: [String: Date],
    spkiPins: [String: [CNSPKIPin]], dropsKeyPins: [String], audience: [String]
  ) -> String {
    var lines = ["iat \(issuedAt.timeIntervalSince1970)", "exp \(expiry.timeIntervalSince1970)"]
    if let notBefore { lines.append("nbf \(notBefore.timeIntervalSince1970)") }
    for host in chains.keys.sorted() {
      for chain in chains[host]! {
        lines.append(
          "\(host.count):\(host) "
            + chain.links.map {
              // A type name never holds "/", so the marker cannot be read as part of one.
              "\($0.type.rawValue)\($0.mayBeAnchor ? "/anchor" : "") \($0.value.utf8.count):\($0.value)"
            }.joined(separator: " "))
      }
    }
    // Only when present, so that the digest of a policy without it is what it always was.
    for host in reportOnly.keys.sorted() {
      lines.append("reportOnly \(host.count):\(host) \(reportOnly[host]!.timeIntervalSince1970)")
    }
    for host in spkiPins.keys.sorted() {
      for pin in spkiPins[host]! { lines.append("spkiPin \(host.count):\(host) \(pin.scope.rawValue) \(pin.sha256Base64)") }
    }
    for host in dropsKeyPins.sorted() { lines.append("dropsKeyPins \(host.count):\(host)") }
    for name in audience.sorted() { lines.append("aud \(name.count):\(name)") }
    let text = Array(lines.joined(separator: "\n").utf8)
    return Data(text.withUnsafeBytes { SHA256Digest.hash($0) }).base64EncodedString()
  }

  /// Why the policy is not for an app that expects `expected` as its audience (nil: none); nil
  /// when it is: it names `expected`, or names none when the app expects none.
  func audienceRefusal(expected: String?) -> CNPolicyError? {
    guard let expected else { return audience.isEmpty ? nil : .audienceMismatch(expected: nil, found: audience) }
    return audience.contains(expected) ? nil : .audienceMismatch(expected: expected, found: audience)
  }

  /// The start of the window: the later of `iat` and `nbf`.
  public var start: Date { max(issuedAt, notBefore ?? issuedAt) }

  /// Whether the policy applies at `date`: start ≤ date < expiry, widened by `clockSkew`.
  public func isValid(at date: Date, clockSkew: TimeInterval = 0) -> Bool {
    date >= start - clockSkew && date < expiry + clockSkew
  }

  /// Whether `host`'s pin failures are only reported at `date` (`reportOnly`).
  func isReportOnly(_ host: HostName, at date: Date) -> Bool {
    reportOnlyByHost[host.normalized].map { date < $0 } ?? false
  }

  /// The chains for `host` (its own entry, else `"*"`) and the key pins along them: the
  /// policy's own for the host (else for `"*"`), none where it drops them, else the host's.
  func chains(for host: HostName) -> HostChains? {
    guard let chains = byHost[host.normalized] ?? wildcard else { return nil }
    if let pins = keyPinsByHost[host.normalized] ?? keyPinsByHost["*"] { return HostChains(chains: chains, keyPins: .own(pins)) }
    if dropsKeyPinsByHost.contains(host.normalized) || dropsKeyPinsByHost.contains("*") {
      return HostChains(chains: chains, keyPins: .dropped)
    }
    return HostChains(chains: chains, keyPins: .app)
  }
}

/// Reads a policy payload, collecting every problem with its path.
private struct PayloadReader {
  var loader = ConfigurationLoader()
  var issuedAt: Date?
  var expiry: Date?
  var notBefore: Date?
  var chains: [String: [CNChain]] = [:]
  var byHost: [String: [CNChain]] = [:]
  var reportOnly: [String: Date] = [:]
  var reportOnlyByHost: [String: Date] = [:]
  var spkiPins: [String: [CNSPKIPin]] = [:]
  var keyPinsByHost: [String: [CNSPKIPin]] = [:]
  var dropsKeyPins: [String] = []
  var dropsKeyPinsByHost: Set<String> = []
  var audience: [String] = []
  /// Each ``spkiPins`` host as written and normalised; each ``dropsKeyPins`` host normalised.
  private var keyPinHosts: [(String, String)] = []
  private var droppedHosts: [String] = []
  private var keysByHost: [String: String] = [:]

  mutating func read(_ payload: ConfigValue) {
    guard var members = loader.members(of: payload, at: "payload", expected: "a JSON object") else { return }
    issuedAt = date("iat", payload["iat"], required: true)
    expiry = date("exp", payload["exp"], required: true)
    notBefore = date("nbf", payload["nbf"], required: false)
    if let value = payload["aud"] { readAudience(value) }
    if let issuedAt, let expiry, expiry <= issuedAt {
      loader.fail("payload.exp", .expiryNotAfterIssue)
    }
    members.sort { $0.key < $1.key }
    for (key, value) in members where !CNEnterprisePolicy.standardClaims.contains(key) {
      let path = ConfigPath("payload").entry(key)
      if key == "reportOnly" {
        readReportOnly(value)
        continue
      }
      if key == "spkiPins" {
        readKeyPins(value)
        continue
      }
      if key == "dropsKeyPins" {
        readDroppedKeyPins(value)
        continue
      }
      if key == "*" {
        if let set = loader.loadChainSet(value, path: path) { chains[key] = set }
        continue
      }
      let host = loader.validatedHost(key, path: path)
      guard let set = loader.loadChainSet(value, path: path), let host else { continue }
      if let earlier = keysByHost[host.normalized] {
        loader.fail(path, .duplicateHost(key, sameAs: earlier))
        continue
      }
      keysByHost[host.normalized] = key
      chains[key] = set
      byHost[host.normalized] = set
    }
    if chains.isEmpty && reportOnly.isEmpty && loader.problems.isEmpty {
      loader.fail("payload", .policyPinsNoHost)
    }
    // Key pins say what applies along the policy's chains: a host without chains has none.
    let (chains, byHost) = (chains, byHost)
    let routed = { (normalized: String) in
      normalized == "*" ? !chains.isEmpty : byHost[normalized] != nil || chains["*"] != nil
    }
    for (written, normalized) in keyPinHosts where !routed(normalized) {
      loader.fail(
        ConfigPath("payload").member("spkiPins").entry(written),
        .invalidValue(written, reason: "has no chains in the policy: its key pins would apply to nothing"))
    }
    for (index, written) in dropsKeyPins.enumerated() {
      let normalized = droppedHosts[index]
      if keyPinsByHost[normalized] != nil {
        loader.fail(
          ConfigPath("payload").member("dropsKeyPins").element(index),
          .invalidValue(written, reason: "also has key pins of the policy's own: give one or the other"))
      } else if !routed(normalized) {
        loader.fail(
          ConfigPath("payload").member("dropsKeyPins").element(index),
          .invalidValue(written, reason: "has no chains in the policy: there are no chains to drop key pins along"))
      }
    }
  }

  /// `aud`: a string, or an array of strings (RFC 7519, 4.1.3).
  private mutating func readAudience(_ value: ConfigValue) {
    let path = ConfigPath("payload").member("aud")
    switch value {
    case .string(let text) where !text.isEmpty: audience = [text]
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        guard case .string(let text) = element, !text.isEmpty else {
          loader.fail(path.element(index), .wrongType(expected: "a non-empty string", found: element.typeName))
          continue
        }
        audience.append(text)
      }
    default: loader.fail(path, .wrongType(expected: "a string or an array of strings", found: value.typeName))
    }
  }

  /// ``spkiPins``: host or `"*"` → pins as configuration files write them (`sha256`, ``appliesTo``).
  private mutating func readKeyPins(_ value: ConfigValue) {
    let path = ConfigPath("payload").member("spkiPins")
    guard let entries = loader.members(of: value, at: path, expected: "an object of host names and pins") else { return }
    for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
      let entry = path.entry(key)
      let normalized: String
      if key == "*" {
        normalized = "*"
      } else if let host = loader.validatedHost(key, path: entry) {
        normalized = host.normalized
      } else {
        continue
      }
      guard
        let pins = loader.loadPins(value, path: entry, make: CNSPKIPin.init(sha256Base64:scope:), fromCertificate: nil)
      else { continue }
      if keyPinsByHost[normalized] != nil {
        loader.fail(entry, .duplicateHost(key, sameAs: key))
        continue
      }
      spkiPins[key] = pins
      keyPinsByHost[normalized] = pins
      keyPinHosts.append((key, normalized))
    }
  }

  /// ``dropsKeyPins``: an array of hosts (or `"*"`) whose key pins the policy drops.
  private mutating func readDroppedKeyPins(_ value: ConfigValue) {
    let path = ConfigPath("payload").member("dropsKeyPins")
    guard let elements = loader.elements(of: value, at: path, expected: "an array of host names") else { return }
    for (index, element) in elements.enumerated() {
      guard case .string(let key) = element else {
        loader.fail(path.element(index), .wrongType(expected: "a host name", found: element.typeName))
        continue
      }
      let normalized = key == "*" ? "*" : loader.validatedHost(key, path: path.element(index))?.normalized
      guard let normalized else { continue }
      guard dropsKeyPinsByHost.insert(normalized).inserted else {
        loader.fail(path.element(index), .duplicateHost(key, sameAs: key))
        continue
      }
      dropsKeyPins.append(key)
      droppedHosts.append(normalized)
    }
  }

  /// ``reportOnly``: host → NumericDate, each later than `iat` and no later than `exp`.
  private mutating func readReportOnly(_ value: ConfigValue) {
    let path = ConfigPath("payload").member("reportOnly")
    guard let entries = loader.members(of: value, at: path, expected: "an object of host names and NumericDates")
    else { return }
    for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
      let entry = path.entry(key)
      guard let host = loader.validatedHost(key, path: entry), let until = date(value, at: entry) else { continue }
      if let expiry, until > expiry {
        loader.fail(
          entry,
          .invalidValue(
            "\(Int(until.timeIntervalSince1970))", reason: "is later than exp: a report-only window never outlasts its policy"))
        continue
      }
      if let issuedAt, until <= issuedAt {
        loader.fail(entry, .invalidValue("\(Int(until.timeIntervalSince1970))", reason: "is not later than iat"))
        continue
      }
      if reportOnlyByHost[host.normalized] != nil {
        loader.fail(entry, .duplicateHost(key, sameAs: key))
        continue
      }
      reportOnly[key] = until
      reportOnlyByHost[host.normalized] = until
    }
  }

  private mutating func date(_ name: String, _ value: ConfigValue?, required: Bool) -> Date? {
    guard let value else {
      if required { loader.fail(ConfigPath("payload").member(name), .missingValue(name)) }
      return nil
    }
    return date(value, at: ConfigPath("payload").member(name))
  }

  /// A NumericDate, or nil with a problem at `path`.
  private mutating func date(_ value: ConfigValue, at path: ConfigPath) -> Date? {
    let seconds: Double
    switch value {
    case .integer(let integer): seconds = Double(integer)
    case .real(let real): seconds = real
    case let other:
      loader.fail(path, .wrongType(expected: "a NumericDate (seconds since 1970)", found: other.typeName))
      return nil
    }
    guard seconds.isFinite, seconds >= 0, seconds <= 253_402_300_799 else {
      loader.fail(path, .wrongType(expected: "a NumericDate between 1970 and 9999", found: "\(seconds)"))
      return nil
    }
    return Date(timeIntervalSince1970: seconds)
  }
}
