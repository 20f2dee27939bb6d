import Testing

@testable import CNPinningSession

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningCurl
#endif

/// Which proxy a request takes, read from settings and from the environment as curl reads it.
@Suite("Proxy rules")
struct ProxyRulesTests {
  static func route(
    _ environment: [String: String], proxy: CNProxy = .environment, noProxy: [String]? = nil, https: Bool = true,
    host: String = "api.example.com"
  ) throws -> String? {
    try ProxyRules(proxy, noProxy: noProxy, environment: { environment[$0] }).route(isHTTPS: https, host: host)?.url
  }

  @Test func theEnvironmentIsReadAsCurlReadsIt() throws {
    #expect(try Self.route(["https_proxy": "proxy.corp:3128"]) == "http://proxy.corp:3128")
    #expect(try Self.route(["HTTPS_PROXY": "https://proxy.corp"]) == "https://proxy.corp:443")
    #expect(try Self.route(["https_proxy": "http://a.corp:1", "HTTPS_PROXY": "http://b.corp:2"]) == "http://a.corp:1")
    #expect(try Self.route(["all_proxy": "http://all.corp"]) == "http://all.corp:1080")
    #expect(try Self.route(["ALL_PROXY": "http://all.corp:8", "https_proxy": ""]) == "http://all.corp:8")
    #expect(try Self.route(["http_proxy": "http://plain.corp:8"], https: false) == "http://plain.corp:8")
    // Only the lower-case http_proxy: a CGI server turns a request's "Proxy:" header into HTTP_PROXY.
    #expect(try Self.route(["HTTP_PROXY": "http://evil.example:8"], https: false) == nil)
    #expect(try Self.route(["http_proxy": "http://plain.corp:8"]) == nil)  // not for https
    #expect(try Self.route([:]) == nil)
  }

  @Test func credentialsInTheURLAreKeptApartAndNeverPrinted() throws {
    let environment = ["https_proxy": "http://al%40ce:p%3Ass@proxy.corp:3128"]
    let rules = try ProxyRules(.environment, noProxy: nil, environment: { environment[$0] })
    let route = try #require(rules.route(isHTTPS: true, host: "a.test"))
    #expect(route.credentials == CNProxyCredentials(user: "al@ce", password: "p:ss"))
    #expect(route.url == "http://proxy.corp:3128")
    #expect(!"\(route) \(route.credentials!)".contains("p:ss"))
  }

  @Test func noProxyListsHostsAndDomains() throws {
    let environment = ["https_proxy": "http://proxy.corp:3128", "no_proxy": "localhost, .internal.corp,10.0.0.1,[::1]"]
    #expect(try Self.route(environment, host: "localhost") == nil)
    #expect(try Self.route(environment, host: "internal.corp") == nil)
    #expect(try Self.route(environment, host: "db.internal.corp") == nil)
    #expect(try Self.route(environment, host: "notinternal.corp") != nil)
    #expect(try Self.route(environment, host: "10.0.0.1") == nil)
    #expect(try Self.route(environment, host: "10.0.0.12") != nil)
    // An address matches only itself: "0.0.1" is no domain that 10.0.0.1 sits under.
    #expect(try Self.route(["https_proxy": "http://p.corp", "no_proxy": "0.0.1"], host: "10.0.0.1") != nil)
    #expect(try Self.route(environment, host: "::1") == nil)
    #expect(try Self.route(["https_proxy": "http://p.corp", "NO_PROXY": "*"]) == nil)
    // A list in the configuration replaces the environment's, even an empty one.
    #expect(try Self.route(["https_proxy": "http://p.corp", "no_proxy": "*"], noProxy: []) == "http://p.corp:1080")
    #expect(try Self.route([:], proxy: .http(host: "p.corp", port: 3128), noProxy: ["example.com"]) == nil)
  }

  @Test func explicitProxiesIgnoreTheEnvironment() throws {
    #expect(try Self.route(["https_proxy": "http://p.corp:1"], proxy: .direct) == nil)
    #expect(
      try Self.route(["https_proxy": "http://other:1", "no_proxy": "*"], proxy: .http(host: "P.Corp", port: 3128))
        == "http://p.corp:3128")
    #expect(try Self.route([:], proxy: .https(host: "::1", port: 8443), https: false) == "https://[::1]:8443")
  }

  @Test(arguments: [
    (
      CNProxy.environment, ["https_proxy": "socks5://p.corp:1080"],
      "https_proxy: socks5:// proxies are not supported (only http:// and https://)"
    ),
    (.environment, ["all_proxy": "http://:8080"], #"all_proxy: "" is not a proxy host: empty host name"#),
    (.http(host: "p.corp", port: 0), [:], "the proxy: 0 is not a port"),
    (.https(host: "p corp", port: 443), [:], #"the proxy: "p corp" is not a proxy host"#),
  ])
  func unusableProxiesAreRefusedSayingWhere(_ proxy: CNProxy, _ environment: [String: String], _ message: String) {
    #expect {
      _ = try ProxyRules(proxy, noProxy: nil, environment: { environment[$0] })
    } throws: { error in
      guard case .invalidArgument(let text) = (error as? CNPinnedSessionError)?.kind else { return false }
      return text.hasPrefix(message)
    }
  }
}
