// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests through real proxies on loopback: tinyproxy (HTTP CONNECT) and socat terminating
/// TLS in front of it (an HTTPS proxy). The origin is 127.0.0.1, a name the proxy resolves
/// itself; pins are judged on the origin's chain inside the tunnel.
@Suite("Proxies", .tags(.concurrency))
struct ProxyTests {
  static let credentials = CNProxyCredentials(user: "alice", password: "s3cret")

  /// Pins for 127.0.0.1 that the default TestPKI satisfies.
  static func originPins() throws -> CNPinningManager {
    try pins("127.0.0.1", [(.prefixWithNumber, "Test Root X"), (.prefixWithNumber, "R"), (.exact, "api.test")])
  }

  static func session(_ proxy: CNProxy, trust: TestIdentity, noProxy: [String]? = nil) throws -> CNPinnedSession {
    var configuration = CNPinnedSessionConfiguration()
    configuration.proxy = proxy
    configuration.noProxy = noProxy
    configuration.timeoutIntervalForRequest = 10
    return try CNPinnedSession(
      manager: try originPins(), configuration: configuration.trusting(.customAnchors([trust.certificate])))
  }

  @Test func aGenuineOriginIsReachedThroughAnHTTPProxyTunnelWithoutTheProxyCredentials() async throws {
    let pki = try TestPKI()
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    let proxy = try TestProxy.start(credentials: (Self.credentials.user, Self.credentials.password))
    let session = try Self.session(.http(host: "127.0.0.1", port: proxy.port, credentials: Self.credentials), trust: pki.root)
    let (body, response) = try await session.data(from: URL(string: "https://127.0.0.1:\(origin.port)/")!)
    #expect(response.statusCode == 200 && String(body) == "hello")
    #expect(proxy.connectRequests() == ["127.0.0.1:\(origin.port)"])
    #expect(origin.requests.count == 1)
    #expect(origin.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
  }

  /// A `Proxy-Authorization` the app sets (in `httpAdditionalHeaders` or on the request) answers
  /// the proxy's challenge in the CONNECT and never travels inside the tunnel to the origin
  /// (before, the CONNECT went without it and every origin, intercepted ones included, got it).
  @Test(arguments: [true, false])
  func aProxyAuthorizationTheAppSetsGoesToTheProxyOnly(inConfiguration: Bool) async throws {
    let pki = try TestPKI()
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    let proxy = try TestProxy.start(credentials: (Self.credentials.user, Self.credentials.password))
    let basic = "Basic " + Data("\(Self.credentials.user):\(Self.credentials.password)".utf8).base64EncodedString()
    var configuration = CNPinnedSessionConfiguration()
    configuration.proxy = .http(host: "127.0.0.1", port: proxy.port)
    configuration.timeoutIntervalForRequest = 10
    if inConfiguration { configuration.httpAdditionalHeaders = ["Proxy-Authorization": basic] }
    let session = try CNPinnedSession(
      manager: try Self.originPins(), configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    var request = URLRequest(url: URL(string: "https://127.0.0.1:\(origin.port)/")!)
    if !inConfiguration { request.setValue(basic, forHTTPHeaderField: "Proxy-Authorization") }
    let (body, response) = try await session.data(for: request)
    #expect(response.statusCode == 200 && String(body) == "hello")
    #expect(proxy.connectRequests() == ["127.0.0.1:\(origin.port)"])
    #expect(origin.requests.count == 1 && origin.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
  }

  /// Without a proxy, an app's `Proxy-Authorization` goes nowhere.
  @Test func withoutAProxyTheAppsProxyAuthorizationIsNotSent() async throws {
    let pki = try TestPKI()
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    var configuration = CNPinnedSessionConfiguration()
    configuration.proxy = .direct
    configuration.httpAdditionalHeaders = ["Proxy-Authorization": "Basic YWxpY2U6czNjcmV0"]
    let session = try CNPinnedSession(
      manager: try Self.originPins(), configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    #expect(try await session.data(from: URL(string: "https://127.0.0.1:\(origin.port)/")!).1.statusCode == 200)
    #expect(origin.requests.count == 1 && origin.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
  }

  @Test func aRogueOriginBehindTheProxyIsRejectedByThePins() async throws {
    let pki = try TestPKI()
    let rogueRoot = try TestIdentity.root("Rogue Root CA")
    let rogue = try LocalTLSServer.start(
      .init(identity: try rogueRoot.issueIntermediate("Rogue CA 1").issueLeaf("api.test", ipAddresses: ["127.0.0.1"])))
    let proxy = try TestProxy.start()
    var configuration = CNPinnedSessionConfiguration()
    configuration.proxy = .http(host: "127.0.0.1", port: proxy.port)
    let session = try CNPinnedSession(
      manager: try Self.originPins(),
      configuration: configuration.trusting(.customAnchors([pki.root.certificate, rogueRoot.certificate])))
    let failure = await expectPinMismatch { _ = try await session.data(from: URL(string: "https://127.0.0.1:\(rogue.port)/")!) }
    #expect(failure?.host == "127.0.0.1")
    #expect(proxy.connectRequests() == ["127.0.0.1:\(rogue.port)"])
    #expect(rogue.requests.isEmpty)
  }

  @Test func theProxyRefusingTheTunnelIsAProxyFailure() async throws {
    let pki = try TestPKI()
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    let proxy = try TestProxy.start(credentials: (Self.credentials.user, Self.credentials.password))
    let session = try Self.session(.http(host: "127.0.0.1", port: proxy.port), trust: pki.root)
    let failure = await error { _ = try await session.data(from: URL(string: "https://127.0.0.1:\(origin.port)/")!) }
    #expect(
      failure
        == .proxyFailed(
          proxy: "127.0.0.1:\(proxy.port)",
          reason: "CONNECT 127.0.0.1:\(origin.port) was answered 407 (proxy authentication required)"))
    #expect(origin.requests.isEmpty)
    proxy.stop()
    // A proxy that does not listen: a port held refusing, which no other test's server can take
    // over as a stopped proxy's port could be.
    try await withRefusedPort { port in
      let unreachable = try Self.session(.http(host: "127.0.0.1", port: port), trust: pki.root)
      let closed = await error { _ = try await unreachable.data(from: URL(string: "https://127.0.0.1:\(origin.port)/")!) }
      #expect(closed == .proxyFailed(proxy: "127.0.0.1:\(port)", reason: "connection refused"))
    }
  }

  /// An HTTPS proxy with its own PKI: its certificate is verified against the proxy's trust and
  /// its own name, and never taken for the origin's (it would not match the origin's pins).
  @Test func anHTTPSProxyIsVerifiedAgainstItsOwnTrustAndTheOriginByItsPins() async throws {
    let pki = try TestPKI()
    let proxyRoot = try TestIdentity.root("Proxy Root")
    let proxyIdentity = try proxyRoot.issueLeaf("proxy.test", ipAddresses: ["127.0.0.1"])
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    let proxy = try TestProxy.start(credentials: (Self.credentials.user, Self.credentials.password), tlsIdentity: proxyIdentity)
    let url = URL(string: "https://127.0.0.1:\(origin.port)/")!

    let session = try Self.session(
      .https(host: "127.0.0.1", port: proxy.port, trust: .customAnchors([proxyRoot.certificate]), credentials: Self.credentials),
      trust: pki.root)
    let (body, _) = try await session.data(from: url)
    #expect(String(body) == "hello")
    #expect(origin.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })

    // The proxy's certificate checked against the origin's trust: refused, and said to be the proxy's.
    let wrongTrust = try Self.session(
      .https(host: "127.0.0.1", port: proxy.port, trust: .customAnchors([pki.root.certificate]), credentials: Self.credentials),
      trust: pki.root)
    let untrusted = await error { _ = try await wrongTrust.data(from: url) }
    let name = try #require(untrusted?.untrustedProxyName, "expected untrustedProxy, got \(String(describing: untrusted))")
    #expect(name == "127.0.0.1:\(proxy.port)")
    #expect(origin.requests.count == 1)
  }

  @Test func aRogueOriginBehindAnHTTPSProxyIsRejectedByThePins() async throws {
    let pki = try TestPKI()
    let proxyRoot = try TestIdentity.root("Proxy Root")
    let proxy = try TestProxy.start(
      tlsIdentity: try proxyRoot.issueLeaf("proxy.test", ipAddresses: ["127.0.0.1"]))
    let rogueRoot = try TestIdentity.root("Rogue Root CA")
    let rogue = try LocalTLSServer.start(
      .init(identity: try rogueRoot.issueIntermediate("Rogue CA 1").issueLeaf("api.test", ipAddresses: ["127.0.0.1"])))
    var configuration = CNPinnedSessionConfiguration()
    configuration.proxy = .https(host: "127.0.0.1", port: proxy.port, trust: .customAnchors([proxyRoot.certificate]))
    let session = try CNPinnedSession(
      manager: try Self.originPins(),
      configuration: configuration.trusting(.customAnchors([pki.root.certificate, rogueRoot.certificate])))
    let failure = await expectPinMismatch { _ = try await session.data(from: URL(string: "https://127.0.0.1:\(rogue.port)/")!) }
    #expect(failure?.host == "127.0.0.1")
    #expect(rogue.requests.isEmpty)
  }

  /// Several requests through one HTTPS proxy: the reused tunnel and fresh ones are judged alike.
  @Test func requestsThroughAnHTTPSProxyReuseTheTunnel() async throws {
    let pki = try TestPKI()
    let proxyRoot = try TestIdentity.root("Proxy Root")
    let proxy = try TestProxy.start(
      tlsIdentity: try proxyRoot.issueLeaf("proxy.test", ipAddresses: ["127.0.0.1"]))
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try Self.session(
      .https(host: "127.0.0.1", port: proxy.port, trust: .customAnchors([proxyRoot.certificate])), trust: pki.root)
    let reused = Locked<[Bool]>([])
    session.setConnectionObserver { event in reused.withLock { $0.append(event.kind == .reused) } }
    for _ in 0..<5 {
      let (body, _) = try await session.data(from: URL(string: "https://127.0.0.1:\(origin.port)/")!)
      #expect(String(body) == "hello")
    }
    // Each new connection is one tunnel; libcurl may find a kept connection closed and retry on a
    // fresh one (a second judgement for that request), which must get its proxy handshake right too.
    let events = reused.withLock { $0 }
    #expect(events.first == false)
    #expect(events.filter { $0 }.count >= 3, "\(events)")
    #expect(proxy.connectRequests().count == events.filter { !$0 }.count, "\(events)")
  }

  @Test func noProxyHostsGoDirect() async throws {
    let pki = try TestPKI()
    let origin = try LocalTLSServer.start(.init(identity: pki.leaf))
    let proxy = try TestProxy.start()
    let session = try Self.session(.http(host: "127.0.0.1", port: proxy.port), trust: pki.root, noProxy: ["127.0.0.1"])
    _ = try await session.data(from: URL(string: "https://127.0.0.1:\(origin.port)/")!)
    #expect(proxy.connectRequests().isEmpty)
    #expect(origin.requests.count == 1)
  }
}
#endif
