import Foundation

/// A verified enterprise policy: the pins it adds per host (or for every pinned host, `"*"`),
/// and the window in which it applies.
///
/// The payload is JSON: `iat` and `exp` (NumericDate, required), `nbf` (optional), the standard
/// claims `iss`, `sub`, `aud`, `jti` (tolerated), one key per host or `"*"`, each an array of
/// chains written root → leaf as in configuration files, and `reportOnly` (optional): an object
/// of host → NumericDate, each host's pin failures only reported, not enforced, until that time
/// (never past `exp`), the usual first response to a lockout. A reader of the format before 0.3
/// reads `reportOnly` as a host and refuses the policy whole.
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
  /// The same, by normalised host.
  let reportOnlyByHost: [String: Date]
  /// Remarks such as links without a type.
  public let warnings: [CNConfigurationWarning]
  /// SHA-256 of the policy's content in a canonical form (window and chains, hosts sorted),
  /// base64: tells two policies with the same `iat` apart, however their JSON was formatted.
  public let contentSHA256: String
  /// A host's chains as written.
  struct HostChains: Sendable, Equatable {
    let chains: [CNChain]

    init(_ chains: [CNChain]) { self.chains = chains }
  }

  /// Chains by normalised host, and for `"*"`.
  let byHost: [String: HostChains]
  let wildcard: HostChains?

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
    self.warnings = reader.loader.warnings
    self.byHost = reader.byHost
    self.wildcard = reader.chains["*"].map(HostChains.init)
    self.contentSHA256 = Self.contentDigest(
      issuedAt: issuedAt, expiry: expiry, notBefore: reader.notBefore, chains: reader.chains,
      reportOnly: reader.reportOnly)
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

  /// What a payload that `validatePayload` accepts uses that a reader of the format before 0.2
  /// does not know (`subjectAltName` links, the `mayBeAnchor` key, even set to false), in words;
  /// such a reader refuses the policy whole, so the app's own pins stay in force
  /// (docs/decisions/enterprise.md).
  package static func newerFeatures(ofPayload payload: Data) throws(CNPolicyError) -> [String] {
    let reader = try read(payload: Array(payload)).0
    let links = reader.chains.values.joined().flatMap(\.links)
    return (links.contains { $0.type == .subjectAltName } ? ["subjectAltName links"] : [])
      + (reader.loader.readsMayBeAnchor ? ["mayBeAnchor"] : []) + (reader.reportOnly.isEmpty ? [] : ["reportOnly"])
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
    issuedAt: Date, expiry: Date, notBefore: Date?, chains: [String: [CNChain]], reportOnly: [String: Date]
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
    let text = Array(lines.joined(separator: "\n").utf8)
    return Data(text.withUnsafeBytes { SHA256Digest.hash($0) }).base64EncodedString()
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

  /// The chains for `host`: its own entry, else `"*"`.
  func chains(for host: HostName) -> HostChains? {
    byHost[host.normalized] ?? wildcard
  }
}

/// Reads a policy payload, collecting every problem with its path.
private struct PayloadReader {
  var loader = ConfigurationLoader()
  var issuedAt: Date?
  var expiry: Date?
  var notBefore: Date?
  var chains: [String: [CNChain]] = [:]
  var byHost: [String: CNEnterprisePolicy.HostChains] = [:]
  var reportOnly: [String: Date] = [:]
  var reportOnlyByHost: [String: Date] = [:]
  private var keysByHost: [String: String] = [:]

  mutating func read(_ payload: ConfigValue) {
    guard var members = loader.members(of: payload, at: "payload", expected: "a JSON object") else { return }
    issuedAt = date("iat", payload["iat"], required: true)
    expiry = date("exp", payload["exp"], required: true)
    notBefore = date("nbf", payload["nbf"], required: false)
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
      byHost[host.normalized] = CNEnterprisePolicy.HostChains(set)
    }
    if chains.isEmpty && reportOnly.isEmpty && loader.problems.isEmpty {
      loader.fail("payload", .policyPinsNoHost)
    }
  }

  /// `reportOnly`: host → NumericDate, each later than `iat` and no later than `exp`.
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

/// The newest enterprise policy a manager has accepted: its issue time and payload hash. It only
/// rises, and survives `signOut`, so an older policy (a stolen one still inside its window) is
/// never accepted again. Persist it (it is `Codable`) and give it back with
/// `raisePolicyHighWaterMark(to:)` to keep that promise across launches.
public struct CNPolicyHighWaterMark: Sendable, Equatable, Codable {
  /// The `iat` of the newest policy accepted.
  public let issuedAt: Date
  /// SHA-256 of the policy's content in canonical form (`CNEnterprisePolicy.contentSHA256`).
  public let contentSHA256: String

  /// A mark for a policy issued at `issuedAt` whose payload has this SHA-256 (hex).
  public init(issuedAt: Date, contentSHA256: String) {
    self.issuedAt = issuedAt
    self.contentSHA256 = contentSHA256
  }

  /// Why `policy` may not be accepted once this mark is reached; nil when it may.
  func refusal(of policy: CNEnterprisePolicy) -> CNPolicyError? {
    if policy.issuedAt < issuedAt { return .olderThanAcceptedPolicy(accepted: issuedAt, offered: policy.issuedAt) }
    if policy.issuedAt == issuedAt, policy.contentSHA256 != contentSHA256 {
      return .reissuedWithDifferentContent(issuedAt: issuedAt)
    }
    return nil
  }
}
