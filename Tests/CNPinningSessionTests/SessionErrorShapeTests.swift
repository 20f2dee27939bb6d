// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// `CNPinnedSessionError` is a struct with an extensible `code` (issue 29, item 1): a caller tells
/// a pin failure from a trust failure from a timeout in one comparison and reaches the details as
/// fields, and cases can be added without breaking a client's `switch`.
@Suite struct SessionErrorShapeTests {
  static let samples: [CNPinnedSessionError] = [
    .invalidURL("ftp://x"), .invalidHost(host: "127.1", reason: "a shortened IPv4 address"),
    .invalidArgument("negative timeout"), .unsupportedRequest("a stream body with a redirect"),
    .untrustedChain(host: "a.test", reason: "unable to get local issuer certificate"), .hostnameMismatch(host: "a.test"),
    .certificateExpired(host: "a.test"), .certificateNotYetValid(host: "a.test"), .hostNotPinned(host: "a.test"),
    .insecureConnectionToPinnedHost(host: "a.test"), .transportSecurity(.insecureHTTP(host: "a.test")),
    .tlsHandshakeFailed(host: "a.test", reason: "no shared cipher"), .connectionRefused(host: "a.test", port: 8443),
    .cannotConnect(host: "a.test", reason: "network unreachable"), .cannotResolveHost(host: "a.test"),
    .timedOut(host: "a.test", seconds: 2), .connectionLost(host: "a.test", reason: "reset"),
    .invalidResponse(host: "a.test", reason: "bad status line"), .responseTooLarge(host: "a.test", limit: 1024),
    .tooManyRedirects(20), .cancelled, .sessionInvalidated, .proxyFailed(proxy: "proxy.test:3128", reason: "403"),
    .untrustedProxy(proxy: "proxy.test:3128", reason: "expired"), .transferFailed(host: "a.test", reason: "?"),
    .setupFailed(reason: "cannot create a private directory for downloads: errno 2"),
  ]

  @Test func everyValueCarriesItsOwnCasesCode() {
    for error in Self.samples {
      #expect(error.code.description == "\(Mirror(reflecting: error.kind).children.first?.label ?? "\(error.kind)")")
    }
    #expect(Set(Self.samples.map(\.code.description)).count == Self.samples.count, "two cases share a code")
    #expect(Self.samples.count == 26)
    let hosts = Self.samples.filter { $0.host == "a.test" }.map(\.code)
    #expect(!hosts.contains(.invalidURL) && hosts.contains(.transportSecurity) && hosts.count == 16)
    #expect(CNPinnedSessionError.timedOut(host: "a.test", seconds: 2).timeout == 2)
    #expect(CNPinnedSessionError.connectionRefused(host: "a.test", port: 8443).port == 8443)
    #expect(CNPinnedSessionError.tooManyRedirects(20).limit == 20)
    #expect(CNPinnedSessionError.proxyFailed(proxy: "p:1", reason: "403").proxy == "p:1")
  }

  /// Against a server whose chain the pins refuse: the one-line test the issue asks for, and the
  /// full pin failure from the error.
  @Test func aPinFailureIsOneComparisonAway() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    defer { server.stop() }
    let manager = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([try CNChain([CNChainLink(.exact, "Another Root"), CNChainLink(.suffix, ".test")])])
    ])
    let session = try CNPinnedSession(
      manager: manager, configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    do {
      _ = try await session.data(from: server.url("/", hostName: "api.test"))
      Issue.record("the pins let another root's chain through")
    } catch let error as CNPinnedSessionError where error.code == .pinMismatch {
      #expect(error.isTrustFailure)
      #expect(error.host == "api.test")
      let failure = try #require(error.pinningFailure)
      #expect(failure.presentedCommonNames.first == "Test Root X1")
    }
  }
}
#endif
