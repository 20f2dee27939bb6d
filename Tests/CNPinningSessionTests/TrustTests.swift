// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The trust scenarios of seed 002, end to end against a real TLS server on loopback.
@Suite("Trust and host names")
struct TrustTests {
  @Test func systemTrustRefusesAPrivateCAAndSendsNoRequest() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(manager: nil, configuration: .default.trusting(.system))
    let failure = await error { _ = try await session.data(from: server.baseURL) }
    let (host, reason) = try #require(
      failure?.details(.untrustedChain), "expected an untrusted chain, got \(String(describing: failure))")
    #expect(host == "127.0.0.1")
    #expect(reason.contains("unable to get local issuer certificate"))
    #expect(server.requests.isEmpty)
    #expect(failure?.isTrustFailure == true)
  }

  @Test func customAnchorsAccept() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf) { _ in .text("secure hello") })
    let session = try CNPinnedSession(manager: nil, configuration: .default.trusting(.customAnchors([pki.root.certificate])))
    let (data, response) = try await session.data(from: server.baseURL)
    #expect(String(data) == "secure hello")
    #expect(response.statusCode == 200)
    #expect(server.requests.count == 1)
  }

  @Test func customAnchorsAddedToTheSystemStoreAccept() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: nil, configuration: .default.trusting(.systemAndCustomAnchors([pki.root.certificate])))
    #expect(String(try await session.data(from: server.baseURL).0) == "hello")
  }

  /// A custom anchor below a root is trusted as given, alone or beside the system's store (the
  /// chain the whole store cannot verify is tried against the custom anchors alone), and the
  /// session and `CNTrustEvaluator` agree; another root's chain is refused by both.
  @Test(arguments: [false, true])
  func anIntermediateGivenAsACustomAnchorIsTrustedAsGiven(_ withSystem: Bool) async throws {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Rogue Root")
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let rogueServer = try LocalTLSServer.start(.init(identity: rogue.leaf))
    let anchors = [pki.intermediate.certificate]
    let trust: CNTrust = withSystem ? .systemAndCustomAnchors(anchors) : .customAnchors(anchors)
    let configuration = CNPinnedSessionConfiguration.default.trusting(trust)
    let session = try CNPinnedSession(manager: nil, configuration: configuration)
    #expect(String(try await session.data(from: server.baseURL).0) == "hello")
    let refusal = await error { _ = try await session.data(from: rogueServer.baseURL) }
    #expect(refusal?.code == .untrustedChain, "\(String(describing: refusal))")
    let evaluator = try CNTrustEvaluator(configuration: configuration)
    let verified = try evaluator.verify(Array(pki.leaf.chain.dropLast()), for: "api.test")
    #expect(verified.map(\.commonName) == ["api.test", "R11"])
    #expect(throws: CNPinnedSessionError.self) { try evaluator.verify(Array(rogue.leaf.chain.dropLast()), for: "api.test") }
  }

  @Test func certificateForAnAddressReachedByNameIsAHostnameMismatch() async throws {
    let pki = try TestPKI(dnsNames: [], ipAddresses: ["127.0.0.1"])
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: nil, configuration: resolving(["localhost"], to: server).trusting(.customAnchors([pki.root.certificate])))
    #expect(try await session.data(from: server.baseURL).1.statusCode == 200)
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "localhost")) }
    #expect(failure == .hostnameMismatch(host: "localhost"))
    #expect(server.requests.count == 1)
  }

  @Test func certificateForOneNameIsRefusedForAnother() async throws {
    let pki = try TestPKI(dnsNames: ["api.test"], ipAddresses: [])
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: nil,
      configuration: resolving(["api.test", "other.test", "sub.api.test"], to: server).trusting(
        .customAnchors([pki.root.certificate])))
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "other.test")) }
        == .hostnameMismatch(host: "other.test"))
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "sub.api.test")) }
        == .hostnameMismatch(host: "sub.api.test"))
    // An IP literal is checked against IP SANs only.
    #expect(await error { _ = try await session.data(from: server.baseURL) } == .hostnameMismatch(host: "127.0.0.1"))
  }

  @Test func commonNameAloneDoesNotNameTheHost() async throws {
    let pki = try TestPKI(leaf: "api.test", dnsNames: [], ipAddresses: [])
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: nil, configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
        == .hostnameMismatch(host: "api.test"))
  }

  @Test func expiredLeafIsRejectedEvenWhenItsNamesMatchThePins() async throws {
    let pki = try TestPKI { spec in
      spec.notBefore = -2 * 86400
      spec.notAfter = -86400
    }
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
        == .certificateExpired(host: "api.test"))
    #expect(server.requests.isEmpty)
  }

  @Test func notYetValidLeafIsRejected() async throws {
    let pki = try TestPKI { spec in
      spec.notBefore = 86400
      spec.notAfter = 2 * 86400
    }
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(manager: nil, configuration: .default.trusting(.customAnchors([pki.root.certificate])))
    #expect(await error { _ = try await session.data(from: server.baseURL) } == .certificateNotYetValid(host: "127.0.0.1"))
  }

  @Test func tls13MinimumAgainstATLS12OnlyServerIsAHandshakeFailure() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.maximumTLSVersion = .tls12
    let server = try LocalTLSServer.start(setup)
    var configuration = CNPinnedSessionConfiguration()
    configuration.transportSecurity.minimumTLSVersion = .tls13
    let modern = try CNPinnedSession(manager: nil, configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    let failure = await error { _ = try await modern.data(from: server.baseURL) }
    let (host, reason) = try #require(
      failure?.details(.tlsHandshakeFailed), "expected a handshake failure, got \(String(describing: failure))")
    #expect(host == "127.0.0.1")
    #expect(reason.lowercased().contains("version"))
    #expect(failure?.isTrustFailure == false)

    let legacy = try CNPinnedSession(manager: nil, configuration: .default.trusting(.customAnchors([pki.root.certificate])))
    #expect(String(try await legacy.data(from: server.baseURL).0) == "hello")
  }

  @Test func ipv6LoopbackWorks() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.address = .ipv6Loopback
    let server = try LocalTLSServer.start(setup)
    let session = try CNPinnedSession(
      manager: try pins("::1", [(.prefix, "Test Root"), (.prefix, "R"), (.exact, "api.test")]),
      configuration: .default.trusting(.customAnchors([pki.root.certificate])))
    #expect(server.baseURL.absoluteString == "https://[::1]:\(server.port)")
    #expect(String(try await session.data(from: server.baseURL).0) == "hello")
  }
}
#endif
