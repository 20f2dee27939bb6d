import Foundation
import Testing

@testable import CNPinningSession
@testable import CNPinningSessionCore

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningSessionLinux
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
    #expect(configuration.redirect(from: original, to: next)?.value(forHTTPHeaderField: "Authorization") == "Bearer t")
    next.url = URL(string: "https://other.test/b")
    let elsewhere = try #require(configuration.redirect(from: original, to: next))
    #expect(elsewhere.value(forHTTPHeaderField: "Authorization") == nil)
    #expect(elsewhere.value(forHTTPHeaderField: "X-Api-Key") == nil)
    #expect(elsewhere.value(forHTTPHeaderField: "Accept") == "*/*")
    configuration.followsRedirects = false
    #expect(configuration.redirect(from: original, to: next) == nil)
  }
}
