import CNPinning
import Foundation
import Testing

/// A host one typo away from a pinned domain is named (issue 28, item 7: `api.locla` in the
/// configuration let requests to `api.local` through unpinned with no hint).
@Suite struct NearMissTests {
  static let chain = try! CNChain([CNChainLink(.exact, "Root"), CNChainLink(.suffix, ".local")])

  @Test func theNearestPinnedDomainIsNamedOncePerHost() throws {
    let manager = try CNPinningManager(configuration: [
      "api.locla": CNConfiguration([Self.chain]), "login.example.com": CNConfiguration([Self.chain]),
    ])
    #expect(manager.nearestPinnedDomain(to: "api.local") == "api.locla")
    #expect(manager.nearestPinnedDomain(to: "API.LOCAL") == "api.locla")
    #expect(manager.nearestPinnedDomain(to: "logon.example.com") == "login.example.com")
    #expect(manager.nearestPinnedDomain(to: "api.locla") == nil, "a pinned host is no near miss")
    #expect(manager.nearestPinnedDomain(to: "cdn.example.org") == nil)
    let reporter = CNPinningReporter()
    let warning = try #require(reporter.nearMissWarning(for: "api.local", pins: manager))
    #expect(warning == "api.local is not pinned, but the configuration pins api.locla: a typo in the configuration or the URL?")
    #expect(reporter.nearMissWarning(for: "api.local", pins: manager) == nil, "once per host")
    #expect(reporter.nearMissWarning(for: "cdn.example.org", pins: manager) == nil)
    #expect(CNPinningReporter().nearMissWarning(for: "api.local", pins: manager) != nil, "once per reporter")
  }
}
