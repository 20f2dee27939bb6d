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

@Suite("Pinning over TLS")
struct PinningTests {
  @Test func matchingPinsAreAcceptedAndOthersRejectedBeforeAnyRequest() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let trust = CNTrust.customAnchors([pki.root.certificate])
    let url = server.url("/items", hostName: "api.test")

    let pinned = try CNPinnedSession(manager: try matchingPins(), configuration: resolving(to: server).trusting(trust))
    #expect(String(try await pinned.data(from: url).0) == "hello")
    #expect(server.requests.map(\.target) == ["/items"])

    let wrongPins = try pins("api.test", [(.prefixWithNumber, "Test Root X"), (.prefixWithNumber, "E"), (.exact, "api.test")])
    let rejecting = try CNPinnedSession(manager: wrongPins, configuration: resolving(to: server).trusting(trust))
    let failure = await error { _ = try await rejecting.data(from: url) }
    let details = try #require(failure?.pinFailure, "expected a pin mismatch, got \(String(describing: failure))")
    #expect(details.host == "api.test")
    #expect(details.presentedCommonNames == ["Test Root X1", "R11", "api.test"])
    #expect(
      details.reason
        == .noMatchingChain([.commonName(position: 1, link: try CNChainLink(.prefixWithNumber, "E"), commonName: "R11")]))
    #expect(server.requests.count == 1)  // still only the first session's request
  }

  @Test func theVerifiedChainIncludesTheAnchorTheServerDidNotSend() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))  // sends leaf + R11 only
    let twoLinks = try pins("api.test", [(.prefixWithNumber, "R"), (.exact, "api.test")])
    let session = try CNPinnedSession(
      manager: twoLinks, configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
    let details = try #require(failure?.pinFailure, "expected a pin mismatch, got \(String(describing: failure))")
    #expect(details.reason == .noMatchingChain([.certificateCount(expected: [2], actual: 3)]))
  }

  @Test func rogueCATrustedAlongsideIsStillRejectedForThePinnedHost() async throws {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Rogue Root CA", intermediate: "Rogue Issuing CA 1")
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let rogueServer = try LocalTLSServer.start(.init(identity: rogue.leaf))
    let trust = CNTrust.customAnchors([pki.root.certificate, rogue.root.certificate])

    let unpinned = try CNPinnedSession(manager: nil, configuration: resolving(to: rogueServer).trusting(trust))
    #expect(try await unpinned.data(from: rogueServer.url("/", hostName: "api.test")).1.statusCode == 200)

    let genuine = try CNPinnedSession(manager: try matchingPins(), configuration: resolving(to: server).trusting(trust))
    #expect(try await genuine.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    let attacked = try CNPinnedSession(manager: try matchingPins(), configuration: resolving(to: rogueServer).trusting(trust))
    let failure = await error { _ = try await attacked.data(from: rogueServer.url("/", hostName: "api.test")) }
    let details = try #require(failure?.pinFailure, "expected a pin mismatch, got \(String(describing: failure))")
    #expect(details.presentedCommonNames == ["Rogue Root CA", "Rogue Issuing CA 1", "api.test"])
    #expect(rogueServer.requests.count == 1)  // only the unpinned session's request
  }

  @Test func extraCertificatesTheServerSendsDoNotCount() async throws {
    let pki = try TestPKI()
    let unrelated = try TestIdentity.root("Unrelated CA")
    let lookAlikeRoot = try TestIdentity.root("Test Root X1")  // same name, another key
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.extraCertificates = [
      unrelated.certificate, lookAlikeRoot.certificate, try unrelated.issueIntermediate("R12").certificate,
    ]
    let server = try LocalTLSServer.start(setup)
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let recorder = Locked<[[CNCertificate]]>([])
    session.setConnectionObserver { event in recorder.withLock { $0.append(event.verifiedChain) } }
    #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
    let chains = recorder.withLock { $0 }
    #expect(chains.map { $0.map(\.commonName) } == [["api.test", "R11", "Test Root X1"]])
    // The anchor is the trusted root, not the look-alike the server sent.
    #expect(chains.first?.last == pki.root.certificate)
    #expect(chains.first?.last != lookAlikeRoot.certificate)
  }

  @Test func pinnedLookingCertificatesFromARogueServerDoNotHelpIt() async throws {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Evil Root", intermediate: "R11")
    var setup = LocalTLSServer.Configuration(identity: rogue.leaf)
    setup.extraCertificates = [pki.intermediate.certificate, pki.root.certificate]  // the genuine CA certificates
    let server = try LocalTLSServer.start(setup)
    let session = try CNPinnedSession(
      manager: try matchingPins(),
      configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate, rogue.root.certificate])))
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
    let details = try #require(failure?.pinFailure, "expected a pin mismatch, got \(String(describing: failure))")
    #expect(details.presentedCommonNames == ["Evil Root", "R11", "api.test"])
  }

  @Test func aRedirectToAHostWhosePinsFailIsRejected() async throws {
    let good = try TestPKI(dnsNames: ["a.test"])
    let other = try TestPKI(root: "Other Root", intermediate: "Other CA", leaf: "b.test", dnsNames: ["b.test"])
    let target = try LocalTLSServer.start(.init(identity: other.leaf))
    let origin = try LocalTLSServer.start(
      .init(identity: good.leaf) { _ in .redirect(to: "https://b.test:\(target.port)/landing") })
    let manager = try CNPinningManager(configuration: [
      "a.test": CNConfiguration([
        CNChain([CNChainLink(.prefix, "Test Root"), CNChainLink(.prefix, "R"), CNChainLink(.exact, "api.test")])
      ]),
      "b.test": CNConfiguration([
        CNChain([CNChainLink(.prefix, "Test Root"), CNChainLink(.prefix, "R"), CNChainLink(.exact, "b.test")])
      ]),
    ])
    var configuration = resolving(["a.test"], to: origin)
    configuration.resolve += resolving(["b.test"], to: target).resolve
    let session = try CNPinnedSession(
      manager: manager, configuration: configuration.trusting(.customAnchors([good.root.certificate, other.root.certificate])))
    let failure = await error { _ = try await session.data(from: origin.url("/start", hostName: "a.test")) }
    let details = try #require(failure?.pinFailure, "expected a pin mismatch, got \(String(describing: failure))")
    #expect(details.host == "b.test")
    #expect(origin.requests.map(\.target) == ["/start"])
    #expect(target.requests.isEmpty)
  }

  @Test(.tags(.concurrency)) func changingPinsTakesEffectOnTheNextRequestEvenOnAReusedConnection() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let events = Locked<[(reused: Bool, refused: Bool)]>([])
    session.setConnectionObserver { event in events.withLock { $0.append((event.kind == .reused, event.error != nil)) } }
    let url = server.url("/", hostName: "api.test")
    #expect(try await session.data(from: url).1.statusCode == 200)
    #expect(try await session.data(from: url).1.statusCode == 200)

    session.manager = try pins("api.test", [(.exact, "Another Root"), (.prefixWithNumber, "R"), (.exact, "api.test")])
    let failure = await error { _ = try await session.data(from: url) }
    _ = try #require(failure?.pinFailure, "expected a pin mismatch, got \(String(describing: failure))")
    // The third request was refused on the open connection, before anything was sent on it.
    let seen = events.withLock { $0 }
    #expect(seen.last?.reused == true && seen.last?.refused == true, "\(seen)")
    #expect(server.requests.count == 2)
    #expect(server.handshakes == seen.filter { !$0.reused }.count)

    session.manager = try matchingPins()
    #expect(try await session.data(from: url).1.statusCode == 200)
  }

  @Test func unpinnedHostsAreRefusedUnderDenyWithoutConnecting() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let session = try CNPinnedSession(
      manager: try matchingPins("other.test"),
      configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate]), unpinnedHosts: .deny))
    #expect(
      await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) } == .hostNotPinned(host: "api.test"))
    #expect(server.connections == 0)

    let noManager = try CNPinnedSession(
      manager: nil, configuration: .default.trusting(.customAnchors([pki.root.certificate]), unpinnedHosts: .deny))
    #expect(await error { _ = try await noManager.data(from: server.baseURL) } == .hostNotPinned(host: "127.0.0.1"))
  }

  @Test func plainHTTPToAPinnedHostIsRefused() async throws {
    let session = try CNPinnedSession(manager: try matchingPins())
    #expect(
      await error { _ = try await session.data(from: URL(string: "http://api.test:1/")!) }
        == .insecureConnectionToPinnedHost(host: "api.test"))
  }
}
#endif
