import CNPinning
import Foundation

/// `cnpin policy sign|verify`: enterprise policies as compact JWS.
enum PolicyCommand {
  static let signSpec = ArgumentSpec(
    flags: ["--help", "-h"], options: ["--key", "--alg"], positionals: 1...1, positionalName: "POLICY.json")
  static let verifySpec = ArgumentSpec(
    flags: ["--json", "--help", "-h"], options: ["--key", "--clock-skew"], positionals: 1...1, positionalName: "TOKEN-FILE")

  static let help = """
    Usage: cnpin policy sign --key PRIVATE.pem [--alg ALG] POLICY.json
           cnpin policy verify --key PUBLIC.pem|PUBLIC.jwk [--clock-skew SECONDS] [--json] TOKEN-FILE

    sign prints the compact JWS of the JSON policy: iat and exp (seconds since 1970), then one key
    per host or "*", each an array of chains written root → leaf. ALG is one of RS256, RS384, RS512,
    PS256, PS384, PS512, ES256, ES384, ES512 (default: RS256 for RSA keys, ES256/384/512 by curve).

    verify checks the token (a trailing newline is ignored) with the public key and prints the
    verified payload and its validity window, or the reason it fails (exit 1).

    Examples:
      cnpin policy sign --key enterprise-private.pem --alg ES256 policy.json > policy.jws
      cnpin policy verify --key enterprise-public.pem policy.jws
    """

  static func run(_ words: [String]) throws(CLIError) {
    guard let action = words.first else { throw .usage("missing sign or verify") }
    let rest = Array(words.dropFirst())
    switch action {
    case "sign": try sign(rest)
    case "verify": try verify(rest)
    default: throw .usage("unknown policy action \"\(action)\" (sign or verify)")
    }
  }

  private static func read(_ path: String, _ what: String) throws(CLIError) -> Data {
    do {
      return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw .usage("cannot read \(what) \(path): \(error.localizedDescription)")
    }
  }

  private static func sign(_ words: [String]) throws(CLIError) {
    let arguments = try signSpec.parse(words)
    guard let keyPath = arguments.value("--key") else { throw .usage("missing --key PRIVATE.pem") }
    var algorithm: CNJWSAlgorithm?
    if let name = arguments.value("--alg") {
      guard let parsed = CNJWSAlgorithm(headerValue: name) else {
        throw .usage("--alg must be one of \(CNJWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name)\"")
      }
      algorithm = parsed
    }
    let payload = try read(arguments.positionals[0], "the policy")
    do {
      // Refuse to sign what a verifier would refuse to read (repeated keys included).
      try CNEnterprisePolicy.validatePayload(payload)
      let newer = try CNEnterprisePolicy.newerFeatures(ofPayload: payload)
      if !newer.isEmpty {
        Output.error(
          "warning: the policy uses \(newer.joined(separator: " and ")), which a reader of the policy format before CNPinning 0.2 (and an Android sibling that has not caught up) does not know: such a reader refuses the whole policy, and the app's own pins stay in force"
        )
      }
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
  }

  private static func verify(_ words: [String]) throws(CLIError) {
    let arguments = try verifySpec.parse(words)
    guard let keyPath = arguments.value("--key") else { throw .usage("missing --key PUBLIC.pem") }
    let skew =
      try arguments.value("--clock-skew").map { text throws(CLIError) -> TimeInterval in
        guard let value = TimeInterval(text), (0...300).contains(value) else {
          throw .usage("--clock-skew must be 0–300 seconds")
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
      validNow: policy.isValid(at: Date(), clockSkew: skew), hosts: policy.chains.mapValues { $0.map(\.links) })
    if arguments.has("--json") {
      Output.print(Output.json(report))
      return
    }
    Output.print("verified: \(policy.algorithm) signature by the given key")
    Output.print("window: \(ISO8601.string(from: policy.start)) ≤ now < \(ISO8601.string(from: policy.expiry))")
    for (host, chains) in policy.chains.sorted(by: { $0.key < $1.key }) {
      for chain in chains { Output.print("\(Output.value(host)): \(chain)") }
    }
    for warning in policy.warnings { Output.error("warning: \(warning)") }
  }
}
