// Uses the OpenSSL test kit and the Linux transport, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// x509-limbo's server-validation cases (Tests/Vectors/x509-limbo, Apache 2.0; see LICENSE-NOTE
/// there), every one, through `CNTrustEvaluator` with a session's default settings and the case's
/// anchors, intermediates, peer name and time. A verdict that differs from the case's expected
/// result must be listed in known-divergences.json with its reason, and every listed divergence
/// must still occur (a ratchet: a change in either direction fails). The cases a TLS server can
/// present (a key, no fixed time, a loopback-reachable name) also run end to end through
/// `CNPinnedSession` against `LocalTLSServer`, which must agree with the evaluator.
@Suite("x509-limbo")
struct X509LimboTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Vectors/x509-limbo")

  struct Case: Sendable {
    let id: String
    let trusted: [String]
    let intermediates: [String]
    let peer: String
    let peerKey: String?
    let validationTime: Date?
    /// The name the chain must be for, and whether it is an IP address.
    let peerName: (value: String, isIPAddress: Bool)?
    let expectsSuccess: Bool
  }

  static func cases() throws -> [Case] {
    let data = try Data(contentsOf: directory.appendingPathComponent("limbo.json"))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let all = try #require(root["testcases"] as? [[String: Any]])
    return try all.filter { $0["validation_kind"] as? String == "SERVER" }.map { entry in
      let name = entry["expected_peer_name"] as? [String: String]
      return Case(
        id: try #require(entry["id"] as? String), trusted: (entry["trusted_certs"] as? [String]) ?? [],
        intermediates: (entry["untrusted_intermediates"] as? [String]) ?? [],
        peer: try #require(entry["peer_certificate"] as? String), peerKey: entry["peer_certificate_key"] as? String,
        validationTime: (entry["validation_time"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) },
        peerName: name.flatMap { name in name["value"].map { ($0, name["kind"] == "IP") } },
        expectsSuccess: try #require(entry["expected_result"] as? String) == "SUCCESS")
    }
  }

  /// The case's certificates as the package reads them; nil (with why) when it cannot.
  static func certificates(_ texts: [String]) -> Result<[CNCertificate], any Error> {
    Result { try texts.flatMap { try CNCertificate.certificates(pemEncoded: $0) } }
  }

  /// The two modes measured: the session's default (which, with the custom anchors every case
  /// gives, is OpenSSL's verification alone) and the strict Web-PKI profile.
  enum Mode: String, CaseIterable, Sendable {
    case standard
    case strict

    var profile: CNCertificateProfile { self == .strict ? .webPKI : .automatic }
    var divergencesFile: String { self == .strict ? "known-divergences-strict.json" : "known-divergences.json" }
    /// What the summary line says the mode measures. x509-limbo's cases use custom anchors, so
    /// the default profile (`.automatic`) applies OpenSSL's checks alone to them, as curl does.
    var summary: String {
      self == .strict
        ? "strict profile (certificateProfile = .webPKI)"
        : "default profile (.automatic: OpenSSL's checks alone under custom anchors, as curl; .webPKI is the strict run)"
    }
  }

  /// The evaluator's verdict: nil when it accepts, else why not.
  static func refusal(_ testCase: Case, mode: Mode) -> String? {
    let peer: [CNCertificate]
    let intermediates: [CNCertificate]
    let trusted: [CNCertificate]
    switch (certificates([testCase.peer]), certificates(testCase.intermediates), certificates(testCase.trusted)) {
    case (.success(let p), .success(let i), .success(let t)):
      (peer, intermediates, trusted) = (p, i, t)
    case (.failure(let error), _, _), (_, .failure(let error), _), (_, _, .failure(let error)):
      return "the certificate reader refuses it: \(error)"
    }
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = .customAnchors(trusted)
    configuration.certificateProfile = mode.profile
    do {
      let evaluator = try CNTrustEvaluator(configuration: configuration)
      _ = try evaluator.verify(peer + intermediates, for: testCase.peerName?.value ?? "", at: testCase.validationTime ?? Date())
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// The divergences the verifier is known to have, by case id, each with its reason.
  static func knownDivergences(_ mode: Mode) throws -> [String: String] {
    let data = try Data(contentsOf: directory.appendingPathComponent(mode.divergencesFile))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
  }

  @Test(arguments: Mode.allCases)
  func everyServerCaseAsLimboSaysOrAsListed(mode: Mode) async throws {
    try await offTheSharedThreads {
      let cases = try Self.cases()
      let known = try Self.knownDivergences(mode)
      #expect(cases.count == 198)
      var right = 0
      var wronglyAccepted = 0
      var wronglyRejected = 0
      var divergent: Set<String> = []
      for testCase in cases {
        let refusal = Self.refusal(testCase, mode: mode)
        if testCase.expectsSuccess == (refusal == nil) {
          right += 1
          if let reason = known[testCase.id] {
            Issue.record("\(testCase.id) now agrees with x509-limbo; remove it from \(mode.divergencesFile) (\(reason))")
          }
          continue
        }
        divergent.insert(testCase.id)
        if refusal == nil { wronglyAccepted += 1 } else { wronglyRejected += 1 }
        if known[testCase.id] == nil {
          let verdict = refusal.map { "refuses it: \($0)" } ?? "accepts it"
          Issue.record(
            Comment(
              rawValue: "\(testCase.id): x509-limbo expects \(testCase.expectsSuccess ? "success" : "failure"), the evaluator "
                + verdict + "; not a known divergence"))
        }
      }
      for id in known.keys.sorted() where !cases.contains(where: { $0.id == id }) {
        Issue.record("\(mode.divergencesFile) lists \(id), which is no server case")
      }
      print(
        "x509-limbo, \(mode.summary): \(cases.count) server cases, \(right) as x509-limbo says; \(divergent.count) known "
          + "divergences, each with its reason in \(mode.divergencesFile) (\(wronglyAccepted) accepted that x509-limbo "
          + "refuses, \(wronglyRejected) refused that it accepts)")
    }
  }

  /// The cases a TLS server can present, through a real handshake: the session must reach the
  /// evaluator's verdict on every one, so the two cannot drift apart.
  @Test(arguments: Mode.allCases)
  func theSessionAgreesWithTheEvaluatorEndToEnd(mode: Mode) async throws {
    var checked = 0
    var skipped: [String] = []
    for testCase in try Self.cases() {
      guard testCase.validationTime == nil, let keyText = testCase.peerKey, let name = testCase.peerName,
        !name.isIPAddress || ["127.0.0.1", "::1"].contains(name.value)
      else { continue }
      guard case .success(let peer) = Self.certificates([testCase.peer]), peer.count == 1,
        case .success(let intermediates) = Self.certificates(testCase.intermediates),
        case .success(let trusted) = Self.certificates(testCase.trusted), !trusted.isEmpty,
        let key = try? TestPrivateKey(pemEncoded: keyText)
      else {
        skipped.append(testCase.id)
        continue
      }
      var setup = LocalTLSServer.Configuration(identity: TestIdentity(certificate: peer[0], privateKey: key))
      setup.chain = intermediates
      setup.securityLevel = 0  // serve whatever the case holds; the client decides
      if name.value == "::1" { setup.address = .ipv6Loopback }
      guard let server = try? LocalTLSServer.start(setup) else {
        skipped.append(testCase.id)
        continue
      }
      defer { server.stop() }
      var configuration = CNPinnedSessionConfiguration()
      configuration.trust = .customAnchors(trusted)
      configuration.timeoutIntervalForRequest = 20
      configuration.certificateProfile = mode.profile
      if !name.isIPAddress { configuration.resolve = [CNHostOverride(host: name.value, port: server.port, address: "127.0.0.1")] }
      let session = try CNPinnedSession(manager: nil, configuration: configuration)
      defer { session.invalidateAndCancel() }
      let host = name.value.contains(":") ? "[\(name.value)]" : name.value
      let sessionRefusal: String?
      do {
        _ = try await session.data(from: try #require(URL(string: "https://\(host):\(server.port)/")))
        sessionRefusal = nil
      } catch {
        sessionRefusal = "\(error)"
      }
      let evaluatorRefusal = Self.refusal(testCase, mode: mode)
      #expect(
        (sessionRefusal == nil) == (evaluatorRefusal == nil),
        Comment(
          rawValue: "\(testCase.id): the session " + (sessionRefusal.map { "refuses it: \($0)" } ?? "accepts it")
            + ", the evaluator " + (evaluatorRefusal.map { "refuses it: \($0)" } ?? "accepts it")))
      checked += 1
    }
    #expect(checked >= 140)
    print(
      "x509-limbo end to end, \(mode.rawValue): \(checked) cases through CNPinnedSession and LocalTLSServer, each as CNTrustEvaluator judged it; "
        + "\(skipped.count) the test kit cannot serve (\(skipped.joined(separator: ", ")))")
  }
}
#endif
