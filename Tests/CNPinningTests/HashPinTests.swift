// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("SPKI and certificate pins, expiry and report-only")
struct HashPinTests {
  static func pki(_ keyType: TestKeyType = .p256) throws -> (root: TestIdentity, intermediate: TestIdentity, leaf: TestIdentity) {
    let root = try TestIdentity.root("Hash Root", keyType: keyType)
    let intermediate = try root.issueIntermediate("Hash CA 1", keyType: keyType)
    return (root, intermediate, try intermediate.issueLeaf("api.test", dnsNames: ["api.test"], keyType: keyType))
  }

  static func manager(_ configuration: CNConfiguration) throws -> CNPinningManager {
    try CNPinningManager(configuration: ["api.test": configuration])
  }

  @Test(arguments: [TestKeyType.rsa2048, .rsa3072, .p256, .p384, .p521, .ed25519])
  func spkiPinsMatchEveryKeyTypeAndAgreeWithTheOpenSSLPipeline(_ keyType: TestKeyType) async throws {
    try await offTheSharedThreads {
      let pki = try Self.pki(keyType)
      let leafPin = try await runShell(
        "openssl x509 -noout -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
        input: Data(pki.leaf.certificate.pemEncoded.utf8)
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      let backup = try CNSPKIPin(sha256Base64: Data(repeating: 7, count: 32).base64EncodedString(), scope: .leaf)
      let manager = try Self.manager(CNConfiguration(spkiPins: [try CNSPKIPin(sha256Base64: leafPin, scope: .leaf), backup]))
      let match = try #require(
        manager.evaluate(host: "api.test", chain: pki.leaf.chain).acceptedMatch, "the leaf's SPKI pin should match")
      #expect(match.spkiPin?.sha256Base64 == leafPin)
      #expect(match.chainIndex == nil)
      let other = try Self.pki(keyType)
      let failure = try #require(
        manager.evaluate(host: "api.test", chain: other.leaf.chain).rejection, "another key must be rejected")
      #expect(failure.reason == .noMatchingSPKIPin([try CNSPKIPin(sha256Base64: leafPin, scope: .leaf), backup]))
      #expect(failure.presentedSPKIHashes == other.leaf.chain.reversed().map(\.spkiSHA256Base64))
      #expect(
        failure.description.contains("presented: " + other.leaf.chain.reversed().map(\.spkiSHA256Base64).joined(separator: ", ")))
    }
  }

  @Test func scopesRestrictWhereAPinMayMatch() throws {
    let pki = try Self.pki()
    let chain = pki.leaf.chain
    func accepts(_ certificate: CNCertificate, _ scope: CNPinScope) throws -> Bool {
      let backup = try CNSPKIPin(sha256Base64: Data(repeating: 1, count: 32).base64EncodedString(), scope: scope)
      return try Self.manager(CNConfiguration(spkiPins: [CNSPKIPin(certificate: certificate, scope: scope), backup]))
        .evaluate(host: "api.test", chain: chain).allowsConnection
    }
    #expect(try accepts(pki.leaf.certificate, .leaf))
    #expect(try !accepts(pki.leaf.certificate, .ca))
    #expect(try accepts(pki.leaf.certificate, .any))
    #expect(try !accepts(pki.intermediate.certificate, .leaf))
    #expect(try accepts(pki.intermediate.certificate, .ca))
    #expect(try accepts(pki.root.certificate, .ca))  // the anchor is a CA certificate of the verified chain
    #expect(try accepts(pki.root.certificate, .any))
  }

  @Test func certificatePinsMatchTheWholeCertificate() throws {
    let pki = try Self.pki()
    let pins = [
      CNCertificatePin(certificate: pki.intermediate.certificate, scope: .ca),
      CNCertificatePin(certificate: pki.root.certificate, scope: .ca),
    ]
    let manager = try Self.manager(CNConfiguration(certificatePins: pins))
    #expect(manager.evaluate(host: "api.test", chain: pki.leaf.chain).allowsConnection)
    // A re-issued intermediate with the same name and key is a different certificate.
    let reissued = try pki.root.issue(
      TestCertificateSpec(subject: [.commonName("Hash CA 1")], key: pki.intermediate.privateKey, isCA: true))
    let newLeaf = try reissued.issueLeaf("api.test")
    let otherRoot = try TestIdentity.root("Hash Root").issueIntermediate("Hash CA 1").issueLeaf("api.test")
    let failure = try #require(
      manager.evaluate(host: "api.test", chain: otherRoot.chain).rejection, "another hierarchy must be rejected")
    #expect(failure.reason == .noMatchingCertificatePin(pins))
    #expect(manager.evaluate(host: "api.test", chain: newLeaf.chain).allowsConnection)  // the root still matches
  }

  @Test func everyScopeGroupMustBeSatisfied() throws {
    let pki = try Self.pki()
    let unrelated = Data(repeating: 2, count: 32).base64EncodedString()
    let leafPins = [
      CNSPKIPin(certificate: pki.leaf.certificate, scope: .leaf), try CNSPKIPin(sha256Base64: unrelated, scope: .leaf),
    ]
    let caPins = [CNSPKIPin(certificate: pki.root.certificate, scope: .ca), try CNSPKIPin(sha256Base64: unrelated, scope: .ca)]
    #expect(
      try Self.manager(CNConfiguration(spkiPins: leafPins + caPins)).evaluate(host: "api.test", chain: pki.leaf.chain)
        .allowsConnection)
    let wrongCA = [try CNSPKIPin(sha256Base64: unrelated, scope: .ca)]
    let result = try Self.manager(CNConfiguration(spkiPins: leafPins + wrongCA)).evaluate(host: "api.test", chain: pki.leaf.chain)
    #expect(result.failure?.reason == .noMatchingSPKIPin(wrongCA))
    // Within one scope, one match is enough.
    #expect(
      try Self.manager(CNConfiguration(spkiPins: leafPins)).evaluate(host: "api.test", chain: pki.leaf.chain).allowsConnection)
  }

  @Test func everyDeclaredKindMustBeSatisfied() throws {
    let pki = try Self.pki()
    let chains = [
      try CNChain([CNChainLink(.exact, "Hash Root"), CNChainLink(.prefixWithNumber, "Hash CA "), CNChainLink(.exact, "api.test")])
    ]
    let rightKey = CNSPKIPin(certificate: pki.intermediate.certificate, scope: .ca)
    let wrongKey = try CNSPKIPin(sha256Base64: Data(repeating: 9, count: 32).base64EncodedString(), scope: .ca)
    #expect(
      try Self.manager(CNConfiguration(chains: chains, spkiPins: [rightKey])).evaluate(host: "api.test", chain: pki.leaf.chain)
        .allowsConnection)
    let bothKinds = try Self.manager(CNConfiguration(chains: chains, spkiPins: [wrongKey]))
    let failure = try #require(
      bothKinds.evaluate(host: "api.test", chain: pki.leaf.chain).rejection, "a matching chain does not excuse a failing SPKI pin"
    )
    #expect(failure.reason.rule == "spkiPins")
    // Same names, other keys: the CN chain matches but the SPKI pin does not.
    let impostor = try TestIdentity.root("Hash Root").issueIntermediate("Hash CA 1").issueLeaf("api.test")
    #expect(
      !(try Self.manager(CNConfiguration(chains: chains, spkiPins: [rightKey]))).evaluate(host: "api.test", chain: impostor.chain)
        .allowsConnection)
  }

  @Test func configurationRules() throws {
    let pin = try CNSPKIPin(sha256Base64: Data(repeating: 1, count: 32).base64EncodedString())
    #expect(throws: CNConfigurationError(.noBackupPin)) { try CNConfiguration(spkiPins: [pin]) }
    #expect(try CNConfiguration(spkiPins: [pin], allowsSingleHashPin: true).spkiPins == [pin])
    #expect(throws: CNConfigurationError(.duplicatePin(1))) { try CNConfiguration(spkiPins: [pin, pin]) }
    #expect(throws: CNConfigurationError(.noPinsDefined)) { try CNConfiguration() }
    #expect(throws: CNConfigurationError(.invalidDigest("AAAA", reason: "decodes to 3 bytes; a SHA-256 digest has 32"))) {
      try CNSPKIPin(sha256Base64: "AAAA")
    }
    #expect(throws: CNConfigurationError(.invalidDigest("not base64!", reason: "is not valid base64"))) {
      try CNCertificatePin(sha256Base64: "not base64!")
    }
    #expect(throws: CNConfigurationError.self) {
      try CNConfiguration(chains: [try CNChain([CNChainLink(.exact, "A")])], expirationDate: Date(timeIntervalSince1970: 1e300))
    }
    #expect(throws: CNConfigurationError(.invalidValue("http://r.test/", reason: "is not an https URL"))) {
      try CNConfiguration(chains: [try CNChain([CNChainLink(.exact, "A")])], reportURI: URL(string: "http://r.test/"))
    }
  }

  @Test func expiredPinsLeaveTheHostUnpinnedAndAreReportedOnce() throws {
    let pki = try Self.pki()
    let expiry = Date().addingTimeInterval(-60)
    let manager = try Self.manager(
      CNConfiguration(chains: [try CNChain([CNChainLink(.exact, "Elsewhere")])], expirationDate: expiry))
    let reports = Locked<[CNPinningFailureReport]>([])
    let reporter = CNPinningReporter { report in reports.withLock { $0.append(report) } }
    #expect(manager.evaluate(host: "api.test", chain: pki.leaf.chain) == .notPinned)
    #expect(
      manager.evaluate(host: "api.test", chain: pki.leaf.chain, at: expiry.addingTimeInterval(-1)).allowsConnection == false)
    for _ in 0..<3 { _ = reporter.evaluateAndReport(host: "api.test", port: 443, chain: pki.leaf.chain, pins: manager) }
    // A reporter of its own reports the expiry again: the manager keeps no reporting state.
    let other = CNPinningReporter()
    #expect(other.evaluateAndReport(host: "api.test", port: 443, chain: pki.leaf.chain, pins: manager).report != nil)
    #expect(waitUntil { reports.withLock { $0.count } == 1 })
    let report = try #require(reports.withLock { $0.first })
    #expect(report.kind == .pinsExpired)
    #expect(report.failedRule == "expirationDate")
    #expect(report.enforced == false)
  }

  @Test func reportOnlyLetsTheConnectionThroughAndReports() throws {
    let pki = try Self.pki()
    let manager = try Self.manager(
      CNConfiguration(
        chains: [try CNChain([CNChainLink(.exact, "Elsewhere"), CNChainLink(.exact, "CA"), CNChainLink(.exact, "api.test")])],
        enforce: false))
    let reports = Locked<[CNPinningFailureReport]>([])
    let reporter = CNPinningReporter { report in reports.withLock { $0.append(report) } }
    let (result, report) = reporter.evaluateAndReport(host: "api.test", port: 8443, chain: pki.leaf.chain, pins: manager)
    #expect(result.reportOnlyFailure != nil, "expected a report-only result, got \(result)")
    #expect(result.allowsConnection)
    #expect(report?.enforced == false)
    #expect(report?.port == 8443)
    #expect(report?.verifiedChain.map(\.commonName) == ["Hash Root", "Hash CA 1", "api.test"])
    #expect(report?.verifiedChain.first?.spkiSHA256 == pki.root.certificate.spkiSHA256Base64)
    #expect(report?.failedRule == "chainSet")
    #expect(waitUntil { reports.withLock { $0.count } == 1 })
  }

  @Test func identicalUploadsAreLimitedToOncePerDay() throws {
    let pki = try Self.pki()
    let manager = try Self.manager(CNConfiguration(chains: [try CNChain([CNChainLink(.exact, "Elsewhere")])]))
    let reporter = CNPinningReporter()
    let (_, report) = reporter.evaluateAndReport(host: "api.test", port: 443, chain: pki.leaf.chain, pins: manager)
    let first = try #require(report)
    let now = Date()
    #expect(reporter.claimUpload(of: first, at: now))
    #expect(!reporter.claimUpload(of: first, at: now.addingTimeInterval(3600)))
    let (_, later) = reporter.evaluateAndReport(host: "api.test", port: 443, chain: pki.leaf.chain, pins: manager)
    #expect(!reporter.claimUpload(of: try #require(later), at: now.addingTimeInterval(7200)))  // same report, other time
    #expect(reporter.claimUpload(of: first, at: now.addingTimeInterval(24 * 3600 + 1)))
    let (_, otherPort) = reporter.evaluateAndReport(host: "api.test", port: 8443, chain: pki.leaf.chain, pins: manager)
    #expect(reporter.claimUpload(of: try #require(otherPort), at: now))
  }

  /// An interceptor that presents a fresh chain on every connection makes every report distinct;
  /// uploads for one domain are still limited, and what is remembered stays bounded.
  @Test func distinctReportsAreRateLimitedPerDomainWithBoundedMemory() async throws {
    try await offTheSharedThreads {
      let pki = try Self.pki()
      let manager = try Self.manager(CNConfiguration(chains: [try CNChain([CNChainLink(.exact, "Elsewhere")])]))
      let reporter = CNPinningReporter()
      let now = Date()
      var allowed = 0
      for port in 1...5000 {
        let report = try #require(
          reporter.evaluateAndReport(host: "api.test", port: port, chain: pki.leaf.chain, pins: manager).report)
        if reporter.claimUpload(of: report, at: now) { allowed += 1 }
      }
      #expect(allowed == CNPinningReporter.uploadsPerDomainPerHour)
      #expect(reporter.rememberedUploadCount <= CNPinningReporter.maximumRememberedUploads)
      // An hour later the domain may upload again.
      let later = try #require(
        reporter.evaluateAndReport(host: "api.test", port: 9999, chain: pki.leaf.chain, pins: manager).report)
      #expect(reporter.claimUpload(of: later, at: now.addingTimeInterval(3601)))
    }
  }

  @Test func reportsEncodeAsDocumentedJSON() throws {
    let pki = try Self.pki()
    let manager = try Self.manager(CNConfiguration(chains: [try CNChain([CNChainLink(.exact, "Elsewhere")])]))
    let report = try #require(
      CNPinningReporter().evaluateAndReport(host: "API.test", port: 443, chain: pki.leaf.chain, pins: manager).report)
    let object = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
    #expect(
      Set(object.keys) == [
        "version", "kind", "time", "host", "port", "configuration", "verifiedChain", "failedRule", "reason", "enforced",
      ])
    #expect(object["host"] as? String == "api.test")
    #expect(object["kind"] as? String == "pin-failure")
    #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    let configuration = try #require(object["configuration"] as? [String: Any])
    #expect(configuration["domain"] as? String == "api.test")
    let certificate = try #require((object["verifiedChain"] as? [[String: Any]])?.last)
    #expect(Set(certificate.keys) == ["commonName", "spkiSHA256", "certificateSHA256"])
    #expect(try JSONDecoder.iso8601.decode(CNPinningFailureReport.self, from: report.jsonData()).reason == report.reason)
  }
}

/// Waits (at most 5 s, in 10 ms steps) for a report handler running on its own queue.
func waitUntil(_ condition: () -> Bool) -> Bool {
  for _ in 0..<500 {
    if condition() { return true }
    usleep(10_000)
  }
  return condition()
}

extension JSONDecoder {
  static var iso8601: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }
}
#endif
