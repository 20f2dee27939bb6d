// Uses the OpenSSL test kit and the Linux transport, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// The `subjectAltName` link and the host check read a leaf's names by one rule (issue 65,
/// item 7): for each host value, the link matches a leaf exactly when the session's host check
/// (OpenSSL's `X509_check_host` or `X509_check_ip`, through `CNTrustEvaluator`) accepts the same
/// leaf for that host. Before, the link took a `*.com` wildcard, a trailing-dot entry and an
/// IPv4-mapped IPv6 entry for an IPv4 host, all of which the host check refuses.
@Suite struct SubjectAltNameAgreementTests {
  static let root = try! TestIdentity.root("Agreement Root")
  static let intermediate = try! root.issueIntermediate("Agreement CA")

  struct Case: Sendable, CustomTestStringConvertible {
    let host: String
    var dns: [String] = []
    var ip: [String] = []
    var testDescription: String { "\(host) vs \(dns + ip)" }
  }

  static let cases: [Case] = [
    Case(host: "api.example.com", dns: ["api.example.com"]),
    Case(host: "api.example.com", dns: ["API.Example.Com"]),
    Case(host: "api.example.com", dns: ["api.example.com."]),
    Case(host: "api.example.com.", dns: ["api.example.com"]),
    Case(host: "api.example.com", dns: ["*.example.com"]),
    Case(host: "a.b.example.com", dns: ["*.example.com"]),
    Case(host: "example.com", dns: ["*.com"]),
    Case(host: "example.com", dns: ["*.example.com"]),
    Case(host: "api.example.com", dns: ["*.example.com."]),
    Case(host: "api.example.com", dns: ["a*.example.com"]),
    Case(host: "api.example.com", dns: ["*.*.com"]),
    Case(host: "xn--bcher-kva.example", dns: ["*.example"]),
    Case(host: "xn--bcher-kva.example.com", dns: ["*.example.com"]),
    Case(host: "api.example.com", dns: ["*.ex_ample.com"]),
    Case(host: "api.sub-domain.example", dns: ["*.sub-domain.example"]),
    Case(host: "api.example.com", dns: ["*.-example.com"]),
    Case(host: "192.0.2.7", ip: ["192.0.2.7"]),
    Case(host: "192.0.2.7", dns: ["192.0.2.7"]),
    Case(host: "192.0.2.7", ip: ["::ffff:192.0.2.7"]),
    Case(host: "::ffff:192.0.2.7", ip: ["192.0.2.7"]),
    Case(host: "::ffff:192.0.2.7", ip: ["::ffff:192.0.2.7"]),
    Case(host: "2001:DB8:0::1", ip: ["2001:db8::1"]),
    Case(host: "2001:db8::2", ip: ["2001:db8::1"]),
    Case(host: "api.example.com", ip: ["192.0.2.7"]),
  ]

  @Test(arguments: cases)
  func theLinkMatchesWhatTheHostCheckAccepts(_ testCase: Case) throws {
    let leaf = try Self.intermediate.issue(.leaf("unused", dnsNames: testCase.dns, ipAddresses: testCase.ip))
    let evaluator = try CNTrustEvaluator(
      configuration: CNPinnedSessionConfiguration().trusting(.customAnchors([Self.root.certificate])))
    let hostCheck: Bool
    do {
      _ = try evaluator.verify([leaf.certificate, Self.intermediate.certificate], for: testCase.host)
      hostCheck = true
    } catch {
      #expect(error.code == .hostnameMismatch, "\(error)")
      hostCheck = false
    }
    let link = try CNChainLink(.subjectAltName, testCase.host)
    #expect(link.matches(leaf.certificate) == hostCheck, "host check \(hostCheck ? "accepts" : "refuses")")
  }
}
#endif
