import CNPinning
import Foundation
import Testing

@testable import CNPinningSession

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningCurl
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the Apple transport refuses instead of silently ignoring (issue 31, item 10: `resolve` and
/// `noProxy` were ignored on Apple platforms).
@Suite struct URLSessionLimitsTests {
  @Test func settingsURLSessionWouldIgnoreAreRefused() throws {
    #expect(CNPinnedSessionConfiguration().settingURLSessionCannotHonour == nil)
    var direct = CNPinnedSessionConfiguration()
    direct.proxy = .direct
    direct.noProxy = ["internal.test"]
    #expect(direct.settingURLSessionCannotHonour == nil, "with no proxy, a bypass list changes nothing")

    var resolve = CNPinnedSessionConfiguration()
    resolve.resolve = [CNHostOverride(host: "api.test", port: 443, address: "127.0.0.1")]
    #expect(resolve.settingURLSessionCannotHonour?.hasPrefix("resolve") == true)

    var noProxy = CNPinnedSessionConfiguration()
    noProxy.noProxy = []
    #expect(noProxy.settingURLSessionCannotHonour?.hasPrefix("noProxy") == true)

    var explicit = CNPinnedSessionConfiguration()
    explicit.proxy = .http(host: "proxy.test", port: 3128)
    #expect(explicit.settingURLSessionCannotHonour?.hasPrefix("an explicit proxy") == true)
  }

  /// A private CA on Apple platforms fails in App Transport Security first; the error says what
  /// to add (issue 31, item 4: it was a bare tlsHandshakeFailed).
  @Test func customAnchorsFailuresSayWhatATSNeeds() {
    #expect(CNTrust.system.appTransportSecurityHint(host: "api.test") == nil)
    let hint = CNTrust.customAnchors([]).appTransportSecurityHint(host: "api.test")
    #expect(hint?.contains("NSExceptionDomains > api.test > NSExceptionAllowsInsecureHTTPLoads") == true)
    #expect(CNTrust.systemAndCustomAnchors([]).appTransportSecurityHint(host: "api.test") == hint)
  }

  /// `URLSession.cnPinned` on Apple platforms: URLSession adds a configuration's headers to every
  /// request it sends, so credentials there would follow a redirect to another origin; they are
  /// refused, and a redirect off the origin loses the request's own credential headers.
  @Test func anAppSessionKeepsCredentialsToTheOrigin() throws {
    var plain = CNPinnedSessionConfiguration()
    plain.httpAdditionalHeaders = ["User-Agent": "app/1"]
    #expect(plain.settingAppURLSessionCannotHonour == nil)
    for (name, extra) in [("authorization", [String]()), ("X-Api-Key", ["x-api-key"])] {
      var credential = CNPinnedSessionConfiguration()
      credential.httpAdditionalHeaders = [name: "secret"]
      credential.credentialHeaders = extra
      #expect(
        credential.settingAppURLSessionCannotHonour?.hasPrefix("httpAdditionalHeaders[\"\(name)\"] is a credential") == true)
    }
    var resolve = CNPinnedSessionConfiguration()
    resolve.resolve = [CNHostOverride(host: "api.test", port: 443, address: "127.0.0.1")]
    #expect(resolve.settingAppURLSessionCannotHonour == resolve.settingURLSessionCannotHonour)

    var configuration = CNPinnedSessionConfiguration()
    configuration.credentialHeaders = ["X-Api-Key"]
    var next = URLRequest(url: URL(string: "https://api.test/b")!)
    for (name, value) in [("Authorization", "Bearer t"), ("X-Api-Key", "k"), ("Accept", "*/*")] {
      next.setValue(value, forHTTPHeaderField: name)
    }
    let original = URL(string: "https://api.test/a")!
    let policy = try configuration.transportSecurity.indexed()
    func followed(_ decision: RedirectDecision) -> URLRequest? {
      if case .follow(let request) = decision { request } else { nil }
    }
    let same = followed(configuration.redirect(from: original, to: next, manager: nil, transportSecurity: policy))
    #expect(same?.value(forHTTPHeaderField: "Authorization") == "Bearer t")
    next.url = URL(string: "https://other.test/b")
    let elsewhere = try #require(
      followed(configuration.redirect(from: original, to: next, manager: nil, transportSecurity: policy)))
    #expect(elsewhere.value(forHTTPHeaderField: "Authorization") == nil)
    #expect(elsewhere.value(forHTTPHeaderField: "X-Api-Key") == nil)
    #expect(elsewhere.value(forHTTPHeaderField: "Accept") == "*/*")
    configuration.followsRedirects = false
    #expect(configuration.redirect(from: original, to: next, manager: nil, transportSecurity: policy) == .stop)
  }

  /// `URLSession.cnPinned` on Apple platforms refuses plain http as the session does: to a pinned
  /// host always, to any host while the transport-security policy is on, redirects included
  /// (https → http was followed, and http:// to a pinned host sent).
  @Test func plainHTTPIsRefusedAsTheSessionRefusesIt() throws {
    let manager = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Root"), CNChainLink(.exact, "api.test")])])
    ])
    let configuration = CNPinnedSessionConfiguration()
    let policy = try configuration.transportSecurity.indexed()
    let pinned = URL(string: "http://api.test/")!
    let other = URL(string: "http://other.test/")!
    #expect(
      configuration.plainHTTPRefusal(for: pinned, manager: manager, transportSecurity: policy)
        == .insecureConnectionToPinnedHost(host: "api.test"))
    #expect(
      configuration.plainHTTPRefusal(for: other, manager: manager, transportSecurity: policy)
        == .transportSecurity(.insecureHTTP(host: "other.test")))
    #expect(
      configuration.plainHTTPRefusal(for: URL(string: "https://api.test/")!, manager: manager, transportSecurity: policy) == nil)
    let downgrade = configuration.redirect(
      from: URL(string: "https://api.test/")!, to: URLRequest(url: other), manager: manager, transportSecurity: policy)
    #expect(downgrade == .refuse(.transportSecurity(.insecureHTTP(host: "other.test"))))
    // What the delegate does with them (issue 53, item 3: shared, where it was Apple-only): a
    // refused redirect or task is cancelled, and a refused redirect hands URLSession nothing.
    var cancels = 0
    #expect(downgrade.request(cancelling: { cancels += 1 }) == nil && cancels == 1)
    #expect(RedirectDecision.stop.request(cancelling: { cancels += 1 }) == nil && cancels == 1)
    let onward = URLRequest(url: URL(string: "https://api.test/next")!)
    #expect(RedirectDecision.follow(onward).request(cancelling: { cancels += 1 }) == onward && cancels == 1)
    configuration.refusePlainHTTP(to: pinned, manager: manager, transportSecurity: policy) { cancels += 1 }
    #expect(cancels == 2)
    configuration.refusePlainHTTP(to: URL(string: "https://api.test/")!, manager: manager, transportSecurity: policy) {
      cancels += 1
    }
    #expect(cancels == 2)
    var relaxed = configuration
    relaxed.transportSecurity = .disabled
    let off = try relaxed.transportSecurity.indexed()
    #expect(relaxed.plainHTTPRefusal(for: other, manager: manager, transportSecurity: off) == nil)
    #expect(
      relaxed.plainHTTPRefusal(for: pinned, manager: manager, transportSecurity: off)
        == .insecureConnectionToPinnedHost(host: "api.test"))
  }
}
