import CNPinning
import Foundation

/// `cnpin policy sign|verify|rescue`: enterprise policies as compact JWS.
enum PolicyCommand {
  static let signSpec = ArgumentSpec(
    command: "policy sign", forms: [[.option(.key), "POLICY.json"]], options: [.key, .algorithm], positionals: 1...1,
    positionalName: "POLICY.json")
  static let verifySpec = ArgumentSpec(
    command: "policy verify", forms: [[.option(.key), "TOKEN-FILE"]],
    options: [.key, .clockSkew, .json.explained("the verified payload and validity window as JSON")], positionals: 1...1,
    positionalName: "TOKEN-FILE")
  static let rescueSpec = ArgumentSpec(
    command: "policy rescue", forms: [[.option(.key), .option(.chain), .option(.host)]],
    options: [
      .key, .algorithm, .chain.explained("the chain HOST serves now, the leaf first"),
      .host.explained("the host the rescue is for"), .cafile, .futureAnchors, .hours, .reportOnlyHours,
    ])

  static let help = Help.text(
    [signSpec, verifySpec, rescueSpec],
    about: """
      sign prints the compact JWS of the JSON policy: iat and exp (seconds since 1970), then one key
      per host or "*", each an array of chains written root → leaf.

      verify checks the token (a trailing newline is ignored) with the public key and prints the
      verified payload and its validity window, or the reason it fails (exit 1).

      rescue makes and signs, in one step, the policy that lets locked-out apps reach HOST again
      after its CA changed: the chain in --chain (the leaf first, as `cnpin pins --format pem` or the
      server writes it) is verified for HOST (system store or --cafile, and --future-anchors), the
      chain `cnpin pins` would suggest for it is written (every shape the roots give), with the keys
      of its CA certificates as the policy's key pins for HOST (appliesTo ca: they replace the app's
      own key pins along the rescue's chain, so key pinning is kept), valid from now for --hours,
      and with --report-only-hours N, HOST's pin failures are only reported for the first N hours.
      Serve the token from any host the app fetches it from: its signature, not the connection, is
      what the app checks. A policy never changes the app's authentication host: a rescue for it
      applies to nothing (a locked-out login host needs an app update).

      sign and rescue say what the policy does to each host's key pins: the policy's own replace the
      app's along its chains, the app's still apply, or (dropsKeyPins, signed) none do.
      """,
    footer: """
      Examples:
        cnpin policy sign --key enterprise-private.pem --alg ES256 policy.json > policy.jws
        cnpin policy verify --key enterprise-public.pem policy.jws
        cnpin policy rescue --key rescue-private.pem --chain new-ca.pem --host api.example.com > rescue.jws
      """)

  static func run(_ words: [String]) throws(CLIError) {
    guard let action = words.first else { throw .usage("missing sign, verify or rescue") }
    let rest = Array(words.dropFirst())
    switch action {
    case "sign": try sign(rest)
    case "verify": try verify(rest)
    case "rescue": try rescue(rest)
    default: throw .usage("unknown policy action \"\(action)\" (sign, verify or rescue)")
    }
  }

  private static func read(_ path: String, _ what: String) throws(CLIError) -> Data {
    try InputFile.read(path, "\(what) \(path)")
  }

  private static func sign(_ words: [String]) throws(CLIError) {
    let arguments = try signSpec.parse(words)
    try sign(try read(arguments.positionals[0], "the policy"), arguments)
  }

  /// `--alg`, when given.
  private static func algorithm(_ arguments: Arguments) throws(CLIError) -> CNJWSAlgorithm? {
    guard let name = arguments.value(.algorithm) else { return nil }
    guard let parsed = CNJWSAlgorithm(headerValue: name) else {
      throw .usage(
        "\(Option.algorithm) must be one of \(CNJWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
    }
    return parsed
  }

  /// `--hours` and `--report-only-hours`: whole hours in `range`.
  private static func hours(_ arguments: Arguments, _ option: Option, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
    guard let text = arguments.value(option) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw .usage(
        "\(option) needs a whole number of hours from \(range.lowerBound) to \(range.upperBound), not \(Output.value(text))")
    }
    return value
  }

  /// The rescue policy for `--host`: the suggested chain of `--chain`, signed.
  private static func rescue(_ words: [String]) throws(CLIError) {
    let arguments = try rescueSpec.parse(words)
    guard arguments.value(.key) != nil else { throw .usage("missing --key PRIVATE.pem") }
    guard let file = arguments.value(.chain) else { throw .usage("missing --chain NEW.pem: the chain the host serves now") }
    guard let hostText = arguments.value(.host) else { throw .usage("missing --host HOST") }
    let host = try HostPort(hostText).host
    let validity = try hours(arguments, .hours, in: 1...720) ?? 72
    let reportOnly = try hours(arguments, .reportOnlyHours, in: 1...validity)
    let trust =
      try arguments.value(.cafile).map { path throws(CLIError) in try NetworkOptions.anchors(inPEMFile: path) } ?? .system
    let roots = try ChainShapes.roots(trust, future: arguments.value(.futureAnchors))
    let shapes = try ChainShapes.verified(try ChainFile.read(file, option: .chain), host: host, roots: roots)
    guard !shapes.isEmpty else {
      throw .failed("\(Option.chain) \(file) does not verify for \(host) under the trust given (--cafile, --future-anchors)")
    }
    let chains: [CNChain]
    do {
      chains = try SuggestedPins.chains(for: shapes, host: host)
    } catch {
      throw .failed("\(error): the chain cannot be pinned by CN")
    }
    let now = Int(Date().timeIntervalSince1970)
    var payload: [String: Any] = ["iat": now, "exp": now + validity * 3600]
    payload[host] = chains.map { chain in
      chain.links.map { link -> [String: Any] in
        var object: [String: Any] = ["type": link.type.rawValue, "value": link.value]
        if link.mayBeAnchor { object["mayBeAnchor"] = true }
        return object
      }
    }
    // The new chain's CA keys (every shape's, the leaf left out), so that a rescue keeps key
    // pinning: they replace the app's key pins along the rescue's chain.
    var keys: [String] = []
    for certificate in shapes.flatMap({ $0.dropLast() }) where !keys.contains(certificate.spkiSHA256Base64) {
      keys.append(certificate.spkiSHA256Base64)
    }
    payload["spkiPins"] = [host: keys.map { ["sha256": $0, "appliesTo": "ca"] }]
    if let reportOnly { payload["reportOnly"] = [host: now + reportOnly * 3600] }
    let data: Data
    do {
      data = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
    } catch {
      throw .failed("cannot write the policy: \(error)")
    }
    for chain in chains { Output.error("rescue: \(Output.value(host)): \(chain)") }
    Output.error(
      "rescue: valid for \(validity) hours, until \(ISO8601.string(from: Date(timeIntervalSince1970: TimeInterval(now + validity * 3600))))"
    )
    if let reportOnly {
      Output.error(
        "rescue: pinning is OFF for \(Output.value(host)) until \(ISO8601.string(from: Date(timeIntervalSince1970: TimeInterval(now + reportOnly * 3600)))) (--report-only-hours \(reportOnly)): its pin failures are only reported"
      )
    }
    Output.error(
      "rescue: a policy never applies to the app's authentication host: if \(Output.value(host)) is it, this rescue changes nothing"
    )
    try sign(data, arguments)
  }

  /// Signs `payload` with `--key` (and `--alg`) and prints the token.
  private static func sign(_ payload: Data, _ arguments: Arguments) throws(CLIError) {
    guard let keyPath = arguments.value(.key) else { throw .usage("missing --key PRIVATE.pem") }
    let algorithm = try algorithm(arguments)
    do {
      // Refuse to sign what a verifier would refuse to read (repeated keys included).
      try CNEnterprisePolicy.validatePayload(payload)
      let newer = try CNEnterprisePolicy.newerFeatures(ofPayload: payload)
      if !newer.isEmpty {
        Output.error(
          "warning: the policy uses \(newer.joined(separator: " and ")), which the reader of CNPinning 0.1.0 (and an Android sibling that has not caught up) does not know: such a reader refuses the whole policy, and the app's own pins stay in force"
        )
      }
      for line in try CNEnterprisePolicy.keyPinEffects(ofPayload: payload) { Output.error("policy: \(Output.value(line))") }
      let signer = try CNPolicySigner(privateKeyPEM: String(decoding: try read(keyPath, "the key"), as: UTF8.self))
      Output.print(try signer.sign(payload: payload, algorithm: algorithm))
    } catch let error as CLIError {
      throw error
    } catch let error as CNPolicyError {
      throw .usage("\(error)")
    } catch {
      throw .usage("\(error)")
    }
  }

  struct Report: Encodable {
    let algorithm: String
    let issuedAt: Date
    let notBefore: Date?
    let expiry: Date
    let validNow: Bool
    let hosts: [String: [[CNChainLink]]]
    /// Per host, until when pinning is OFF (its failures only reported).
    let reportOnlyUntil: [String: Date]
    /// Per host, what the policy does to the host's key pins.
    let keyPins: [String: String]
  }

  private static func verify(_ words: [String]) throws(CLIError) {
    let arguments = try verifySpec.parse(words)
    guard let keyPath = arguments.value(.key) else { throw .usage("missing --key PUBLIC.pem") }
    let skew =
      try arguments.value(.clockSkew).map { text throws(CLIError) -> TimeInterval in
        guard let value = TimeInterval(text), (0...300).contains(value) else {
          throw .usage("\(Option.clockSkew) must be 0–300 seconds")
        }
        return value
      } ?? 0
    let keyData = try read(keyPath, "the key")
    let key: CNPolicySigningKey
    do {
      let text = String(decoding: keyData, as: UTF8.self)
      key =
        text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{")
        ? try CNPolicySigningKey(jwk: keyData) : try CNPolicySigningKey(pemEncoded: text)
    } catch {
      throw .usage("\(error)")
    }
    var token = try read(arguments.positionals[0], "the token")
    while let last = token.last, last == 0x0A || last == 0x0D { token.removeLast() }
    let policy: CNEnterprisePolicy
    do {
      policy = try CNEnterprisePolicy(token: token, key: key, clockSkew: skew)
    } catch {
      throw .failed("the policy does not verify: \(error)")
    }
    let report = Report(
      algorithm: policy.algorithm.rawValue, issuedAt: policy.issuedAt, notBefore: policy.notBefore, expiry: policy.expiry,
      validNow: policy.isValid(at: Date(), clockSkew: skew), hosts: policy.chains.mapValues { $0.map(\.links) },
      reportOnlyUntil: policy.reportOnlyUntil,
      keyPins: Dictionary(uniqueKeysWithValues: policy.chains.keys.map { ($0, policy.keyPinEffect(forHostAsWritten: $0)) }))
    if arguments.has(.json) {
      Output.print(Output.json(report))
      return
    }
    Output.print("verified: \(policy.algorithm) signature by the given key")
    Output.print("window: \(ISO8601.string(from: policy.start)) ≤ now < \(ISO8601.string(from: policy.expiry))")
    for (host, chains) in policy.chains.sorted(by: { $0.key < $1.key }) {
      for chain in chains { Output.print("\(Output.value(host)): \(chain)") }
      Output.print("\(Output.value(host)): \(Output.value(policy.keyPinEffect(forHostAsWritten: host)))")
    }
    for (host, until) in policy.reportOnlyUntil.sorted(by: { $0.key < $1.key }) {
      Output.print(
        "pinning is OFF for \(Output.value(host)) until \(ISO8601.string(from: until)): its pin failures are only reported")
    }
    for warning in policy.warnings { Output.error("warning: \(warning)") }
  }
}
