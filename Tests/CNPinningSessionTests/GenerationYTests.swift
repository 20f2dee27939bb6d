// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// Let's Encrypt's Generation Y through real handshakes on loopback: a server sends its leaf, the
/// intermediate and the cross-signed Generation Y root, as Let's Encrypt's servers do; the chain
/// OpenSSL verifies depends on the trust store, and the transition chainSet accepts both shapes
/// while a Generation X configuration refuses them, naming the links that differ.
@Suite("Let's Encrypt Generation Y")
struct GenerationYTests {
  /// The README's transition chainSet for `api.test`.
  static func transitionPins() throws -> CNPinningManager {
    func chain(_ links: [(CNChainLink.LinkType, String)]) throws -> CNChain {
      try CNChain(links.map { try CNChainLink($0.0, $0.1) })
    }
    return try CNPinningManager(configuration: [
      "api.test": CNConfiguration([
        try chain([(.prefixWithNumber, "ISRG Root X"), (.exact, "Root YR"), (.prefixWithNumber, "YR"), (.exact, "api.test")]),
        try chain([(.exact, "Root YR"), (.prefixWithNumber, "YR"), (.exact, "api.test")]),
        try chain([(.prefixWithNumber, "ISRG Root X"), (.exact, "Root YE"), (.prefixWithNumber, "YE"), (.exact, "api.test")]),
        try chain([(.exact, "Root YE"), (.prefixWithNumber, "YE"), (.exact, "api.test")]),
      ])
    ])
  }

  /// The example every document showed until 2026: Generation X only.
  static func generationXPins() throws -> CNPinningManager {
    try CNPinningManager(configuration: [
      "api.test": CNConfiguration([
        try CNChain([
          try CNChainLink(.prefixWithNumber, "ISRG Root X"), try CNChainLink(.prefixWithNumber, "R"),
          try CNChainLink(.exact, "api.test"),
        ])
      ])
    ])
  }

  static func session(_ pins: CNPinningManager, anchors: [CNCertificate], server: LocalTLSServer) throws -> CNPinnedSession {
    try CNPinnedSession(manager: pins, configuration: resolving(to: server).trusting(.customAnchors(anchors)))
  }

  @Test(arguments: [LetsEncryptPKI.Issuance.generationYRSA, .generationYECDSA], [false, true])
  func bothShapesOfGenerationYAreAccepted(_ issuance: LetsEncryptPKI.Issuance, _ storeHasGenerationY: Bool) async throws {
    let pki = try LetsEncryptPKI()
    let (identity, chain) = try pki.server("api.test", issuance)
    var setup = LocalTLSServer.Configuration(identity: identity)
    setup.chain = chain
    let server = try LocalTLSServer.start(setup)
    let session = try Self.session(
      try Self.transitionPins(), anchors: pki.anchors(includingGenerationY: storeHasGenerationY), server: server)
    let events = Locked<[CNConnectionEvent]>([])
    session.setConnectionObserver { event in events.withLock { $0.append(event) } }
    #expect(String(try await session.data(from: server.url("/", hostName: "api.test")).0) == "hello")
    let verified = try #require(events.withLock { $0.first }).verifiedChain.map { $0.commonName ?? "?" }
    let (root, intermediate) = issuance == .generationYRSA ? ("Root YR", "YR2") : ("Root YE", "YE1")
    let generationX = issuance == .generationYRSA ? "ISRG Root X1" : "ISRG Root X2"
    #expect(
      verified == (storeHasGenerationY ? ["api.test", intermediate, root] : ["api.test", intermediate, root, generationX]))
  }

  /// One chain with the roots a store may hold marked `mayBeAnchor` covers the three shapes a
  /// store verifies from Let's Encrypt's default ECDSA chain (leaf, YE1, Root YE cross-signed by
  /// X2, X2 cross-signed by X1), for a `tlsserver` leaf without a subject, pinned by its name.
  @Test(arguments: LetsEncryptPKI.Store.allCases)
  func oneChainCoversTheECDSAShapesOfEveryStore(_ store: LetsEncryptPKI.Store) async throws {
    let pki = try LetsEncryptPKI()
    let (identity, chain) = try pki.server("api.test", .generationYECDSA, profile: .tlsServer)
    #expect(identity.certificate.commonName == nil)
    var setup = LocalTLSServer.Configuration(identity: identity)
    setup.chain = chain
    let server = try LocalTLSServer.start(setup)
    let pins = try CNPinningManager(configuration: [
      "api.test": CNConfiguration([
        CNChain([
          CNChainLink(.exact, "ISRG Root X1"), CNChainLink(.exact, "ISRG Root X2", mayBeAnchor: true),
          CNChainLink(.exact, "Root YE", mayBeAnchor: true), CNChainLink(.prefixWithNumber, "YE"),
          CNChainLink(.subjectAltName, "api.test"),
        ])
      ])
    ])
    let session = try Self.session(pins, anchors: pki.anchors(store), server: server)
    let events = Locked<[CNConnectionEvent]>([])
    session.setConnectionObserver { event in events.withLock { $0.append(event) } }
    #expect(String(try await session.data(from: server.url("/", hostName: "api.test")).0) == "hello")
    let verified = try #require(events.withLock { $0.first }).verifiedChain.map { $0.commonName ?? "(none)" }
    let expected: [String] =
      switch store {
      case .rootX1Only: ["(none)", "YE1", "Root YE", "ISRG Root X2", "ISRG Root X1"]
      case .generationX: ["(none)", "YE1", "Root YE", "ISRG Root X2"]
      case .generationY: ["(none)", "YE1", "Root YE"]
      }
    #expect(verified == expected)
  }

  /// A Generation X configuration refuses both shapes before any request is sent, and says
  /// which links differ.
  @Test(arguments: [false, true])
  func aGenerationXConfigurationRefusesGenerationY(_ storeHasGenerationY: Bool) async throws {
    let pki = try LetsEncryptPKI()
    let (identity, chain) = try pki.server("api.test", .generationYRSA)
    var setup = LocalTLSServer.Configuration(identity: identity)
    setup.chain = chain
    let server = try LocalTLSServer.start(setup)
    let session = try Self.session(
      try Self.generationXPins(), anchors: pki.anchors(includingGenerationY: storeHasGenerationY), server: server)
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
    #expect(failure?.code == .pinMismatch)
    let reason = failure.map { "\($0)" } ?? ""
    if storeHasGenerationY {
      #expect(
        reason.contains(#"certificate 1 (root → leaf) has CN "YR2", which does not match prefixWithNumber "R""#), "\(reason)")
    } else {
      #expect(reason.contains("expected 3 certificates, the verified chain has 4"), "\(reason)")
    }
    #expect(server.requests.isEmpty)
  }
}
#endif
