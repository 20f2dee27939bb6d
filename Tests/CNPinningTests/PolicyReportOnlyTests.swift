// Uses the OpenSSL test kit, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// A signed, time-bounded report-only setting per host (issue 54, item 1): the usual first
/// response to a lockout, never longer than its policy, and refused by a reader that does not
/// know it (which reads `reportOnly` as a host with no chains).
@Suite struct PolicyReportOnlyTests {
  static let keys = try! PolicyKeyPair(.p256, slot: 47)
  static let chain = try! TestPKI().leaf.chain

  static func manager() throws -> CNPinningManager {
    try CNPinningManager(
      configuration: [
        "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Other Root"), CNChainLink(.exact, "api.test")])]),
        "auth.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Other Root"), CNChainLink(.exact, "auth.test")])]),
      ],
      enterprise: CNEnterpriseOptions(authenticationHost: "auth.test", policySigningKey: Self.keys.publicKey))
  }

  static func payload(issued: Date, lifetime: TimeInterval = 3600, reportOnly: String) -> String {
    let iat = Int(issued.timeIntervalSince1970)
    return #"{"iat": \#(iat), "exp": \#(iat + Int(lifetime)), "reportOnly": \#(reportOnly)}"#
  }

  @Test func aHostInReportOnlyModeIsReportedNotRefusedUntilItsTime() throws {
    let manager = try Self.manager()
    let now = Date()
    #expect(manager.evaluate(host: "api.test", chain: Self.chain, at: now).isRejected)
    let until = Int(now.timeIntervalSince1970) + 600
    try manager.applyEnterprisePolicy(
      with: try Self.keys.sign(Self.payload(issued: now.addingTimeInterval(-60), reportOnly: #"{"api.test": \#(until)}"#)))
    guard case .reportOnly = manager.evaluate(host: "api.test", chain: Self.chain, at: now) else {
      Issue.record("api.test should be in report-only mode")
      return
    }
    #expect(manager.evaluate(host: "api.test", chain: Self.chain, at: now.addingTimeInterval(601)).isRejected, "the window ended")
    #expect(manager.enterprisePolicy?.reportOnlyUntil["api.test"] == Date(timeIntervalSince1970: Double(until)))
  }

  /// The login host is never affected by a policy, report-only included: a policy that would
  /// put only it in report-only mode changes no host, and applying it is an error (issue 65).
  @Test func theLoginHostIsNeverPutInReportOnlyMode() throws {
    let manager = try Self.manager()
    let now = Date()
    let until = Int(now.timeIntervalSince1970) + 600
    let error = #expect(throws: CNPolicyError.self) {
      try manager.applyEnterprisePolicy(
        with: try Self.keys.sign(Self.payload(issued: now.addingTimeInterval(-60), reportOnly: #"{"auth.test": \#(until)}"#)))
    }
    #expect(error?.code == .changesNoHost)
    #expect(manager.evaluate(host: "auth.test", chain: Self.chain, at: now).isRejected)
  }

  @Test(arguments: [
    (#"{"api.test": EXP_PLUS}"#, "later than exp"),
    (#"{"api.test": IAT}"#, "not later than iat"),
    (#"{"api.test": "soon"}"#, "NumericDate"),
    (#"["api.test"]"#, "object"),
    (#"{"*": EXP}"#, "*"),
  ])
  func aReportOnlySettingOutsideItsRulesRefusesThePolicy(_ setting: String, _ expected: String) throws {
    let issued = Date().addingTimeInterval(-60)
    let iat = Int(issued.timeIntervalSince1970)
    let text = setting.replacingOccurrences(of: "EXP_PLUS", with: "\(iat + 3601)")
      .replacingOccurrences(of: "EXP", with: "\(iat + 3600)").replacingOccurrences(of: "IAT", with: "\(iat)")
    let manager = try Self.manager()
    let error = #expect(throws: CNPolicyError.self) {
      try manager.applyEnterprisePolicy(with: try Self.keys.sign(Self.payload(issued: issued, reportOnly: text)))
    }
    #expect(error?.code == .invalidPayload && "\(String(describing: error))".contains(expected), "\(String(describing: error))")
  }

  /// A policy may hold report-only settings alone; a reader of the earlier format refuses it
  /// (`cnpin policy sign` warns), and it is part of the content anti-rollback compares.
  @Test func aReportOnlyPolicyIsNewContent() throws {
    let issued = Date().addingTimeInterval(-60)
    let until = Int(issued.timeIntervalSince1970) + 600
    let with = Self.payload(issued: issued, reportOnly: #"{"api.test": \#(until)}"#)
    #expect(try CNEnterprisePolicy.newerFeatures(ofPayload: Data(with.utf8)) == ["reportOnly"])
    let manager = try Self.manager()
    try manager.applyEnterprisePolicy(with: try Self.keys.sign(with))
    let later = Self.payload(issued: issued, reportOnly: #"{"api.test": \#(until + 60)}"#)
    #expect(throws: CNPolicyError.self) { try manager.refreshEnterprisePolicy(with: try Self.keys.sign(later)) }
  }
}

extension CNPinningResult {
  fileprivate var isRejected: Bool {
    if case .rejected = self { return true }
    return false
  }
}
#endif
