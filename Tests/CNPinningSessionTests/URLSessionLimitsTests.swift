import Foundation
import Testing

@testable import CNPinningSession

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
}
