// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// The App Transport Security-like policy, on by default, each requirement against a server
/// configured to break exactly that requirement.
@Suite("Transport security")
struct TransportSecurityTests {
  static func session(_ root: TestIdentity, _ server: LocalTLSServer, exception: CNTransportSecurityException? = nil) throws
    -> CNPinnedSession
  {
    var configuration = resolving(to: server)
    if let exception { configuration.transportSecurity.exceptions = ["api.test": exception] }
    return try CNPinnedSession(manager: nil, configuration: configuration.trusting(.customAnchors([root.certificate])))
  }

  static func violation(_ session: CNPinnedSession, _ server: LocalTLSServer) async -> CNTransportSecurityViolation? {
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
    let violation = failure?.transportSecurityViolation
    #expect(violation != nil, "expected a transport-security violation, got \(String(describing: failure))")
    return violation
  }

  @Test func plainHTTPIsRefusedUnlessExcepted() async throws {
    let identity = try TestIdentity.root("unused").issueLeaf("api.test")
    var setup = LocalTLSServer.Configuration(identity: identity) { _ in .text("plain") }
    setup.behavior = .plainHTTP
    let server = try LocalTLSServer.start(setup)
    let strict = try Self.session(identity.root, server)
    #expect(await Self.violation(strict, server) == .insecureHTTP(host: "api.test"))
    #expect(server.connections == 0)
    let excepted = try Self.session(identity.root, server, exception: CNTransportSecurityException(allowsInsecureHTTPLoads: true))
    #expect(String(try await excepted.data(from: server.url("/", hostName: "api.test")).0) == "plain")
  }

  @Test func weakLeafKeysAreRefused() async throws {
    let root = try TestIdentity.root("Weak Root", keyType: .rsa2048)
    let leaf = try root.issueLeaf("api.test", dnsNames: ["api.test"], keyType: .rsa1024)
    var setup = LocalTLSServer.Configuration(identity: leaf)
    setup.securityLevel = 0  // let the server use a 1024-bit key at all
    let server = try LocalTLSServer.start(setup)
    #expect(await Self.violation(try Self.session(root, server), server) == .leafKey(host: "api.test", found: "RSA-1024"))
    #expect(server.requests.isEmpty)
    let excepted = try Self.session(root, server, exception: CNTransportSecurityException(allowsWeakCertificates: true))
    #expect(try await excepted.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  /// A CA below the anchor with a key OpenSSL's security level refuses is named as that CA,
  /// not reported as the leaf's key (the leaf here is P-256).
  @Test func aWeakCAKeyIsNamedAsTheCAs() async throws {
    let root = try TestIdentity.root("Sound Root", keyType: .rsa2048)
    let intermediate = try root.issueIntermediate("Weak CA", keyType: .rsa1024)
    let leaf = try intermediate.issueLeaf("api.test", dnsNames: ["api.test"])
    var setup = LocalTLSServer.Configuration(identity: leaf)
    setup.securityLevel = 0
    let server = try LocalTLSServer.start(setup)
    let failure = await error { _ = try await Self.session(root, server).data(from: server.url("/", hostName: "api.test")) }
    #expect(
      failure
        == .untrustedChain(host: "api.test", reason: "the CA certificate \"Weak CA\" has a key (RSA-1024) that is too small"))
    #expect(server.requests.isEmpty)
  }

  @Test func sha1SignaturesBelowTheAnchorAreRefused() async throws {
    let root = try TestIdentity.root("SHA1 Root")
    var intermediateSpec = TestCertificateSpec.ca("R11")
    intermediateSpec.digest = .sha1
    let intermediate = try root.issue(intermediateSpec)
    let leaf = try intermediate.issueLeaf("api.test", dnsNames: ["api.test"])
    var setup = LocalTLSServer.Configuration(identity: leaf)
    setup.securityLevel = 0
    let server = try LocalTLSServer.start(setup)
    #expect(
      await Self.violation(try Self.session(root, server), server)
        == .signatureHash(host: "api.test", certificate: "\"R11\"", found: "SHA-1"))
    let excepted = try Self.session(root, server, exception: CNTransportSecurityException(allowsWeakCertificates: true))
    #expect(try await excepted.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  @Test func tls11IsRefusedUnlessExcepted() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.minimumTLSVersion = .tls10
    setup.maximumTLSVersion = .tls11
    setup.securityLevel = 0
    let server = try LocalTLSServer.start(setup)
    #expect(
      await Self.violation(try Self.session(pki.root, server), server)
        == .protocolVersion(host: "api.test", required: .tls12, found: nil))
    let excepted = try Self.session(
      pki.root, server, exception: CNTransportSecurityException(minimumTLSVersion: .tls11, requiresForwardSecrecy: false))
    #expect(try await excepted.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  /// The session has one TLS floor; an exception that relaxes something else keeps it. (Before,
  /// every exception carried a TLS 1.2 minimum of its own and so lowered a `.tls13` floor.)
  @Test func anExceptionWithoutAVersionKeepsTheSessionsFloor() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.maximumTLSVersion = .tls12
    let server = try LocalTLSServer.start(setup)
    var configuration = resolving(to: server)
    configuration.transportSecurity.minimumTLSVersion = .tls13
    configuration.transportSecurity.exceptions = ["api.test": CNTransportSecurityException(allowsInsecureHTTPLoads: true)]
    let session = try CNPinnedSession(manager: nil, configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    let failure = await error { _ = try await session.data(from: server.url("/", hostName: "api.test")) }
    #expect(failure?.code == .tlsHandshakeFailed, "a TLS 1.2 server under a TLS 1.3 floor: \(String(describing: failure))")
    #expect(server.requests.isEmpty)
    configuration.transportSecurity.exceptions = ["api.test": CNTransportSecurityException(minimumTLSVersion: .tls12)]
    let lowered = try CNPinnedSession(manager: nil, configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    #expect(try await lowered.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  @Test func cbcOnlyCiphersAreRefused() async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.maximumTLSVersion = .tls12
    setup.cipherList = "ECDHE-ECDSA-AES128-SHA256"
    let server = try LocalTLSServer.start(setup)
    #expect(
      await Self.violation(try Self.session(pki.root, server), server)
        == .cipherSuite(host: "api.test", found: "ECDHE-ECDSA-AES128-SHA256"))
    #expect(server.requests.isEmpty)
    let excepted = try Self.session(pki.root, server, exception: CNTransportSecurityException(requiresForwardSecrecy: false))
    #expect(try await excepted.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  @Test(arguments: ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305"])
  func tls12CiphersWithGCMOrChaChaAndForwardSecrecyPass(cipher: String) async throws {
    let pki = try TestPKI()
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.maximumTLSVersion = .tls12
    setup.cipherList = cipher
    let server = try LocalTLSServer.start(setup)
    #expect(try await Self.session(pki.root, server).data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)
  }

  @Test func ciphersWithoutForwardSecrecyAreRefused() async throws {
    let root = try TestIdentity.root("RSA Root", keyType: .rsa2048)
    let leaf = try root.issueLeaf("api.test", dnsNames: ["api.test"], keyType: .rsa2048)
    var setup = LocalTLSServer.Configuration(identity: leaf)
    setup.maximumTLSVersion = .tls12
    setup.cipherList = "AES128-GCM-SHA256"  // RSA key exchange: GCM, but no forward secrecy
    let server = try LocalTLSServer.start(setup)
    #expect(
      await Self.violation(try Self.session(root, server), server) == .cipherSuite(host: "api.test", found: "AES128-GCM-SHA256"))
  }

  @Test func modernServersPassAndExceptionsCoverSubdomains() async throws {
    let pki = try TestPKI(dnsNames: ["api.test", "v1.api.test"])
    var setup = LocalTLSServer.Configuration(identity: pki.leaf)
    setup.maximumTLSVersion = .tls12
    setup.cipherList = "ECDHE-ECDSA-CHACHA20-POLY1305"
    let server = try LocalTLSServer.start(setup)
    #expect(try await Self.session(pki.root, server).data(from: server.url("/", hostName: "api.test")).1.statusCode == 200)

    var cbc = LocalTLSServer.Configuration(identity: pki.leaf)
    cbc.maximumTLSVersion = .tls12
    cbc.cipherList = "ECDHE-ECDSA-AES256-SHA384"
    let legacy = try LocalTLSServer.start(cbc)
    var configuration = resolving(["v1.api.test"], to: legacy)
    configuration.transportSecurity.exceptions = [
      "API.test": CNTransportSecurityException(includesSubdomains: true, requiresForwardSecrecy: false)
    ]
    let session = try CNPinnedSession(manager: nil, configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    #expect(try await session.data(from: legacy.url("/", hostName: "v1.api.test")).1.statusCode == 200)

    configuration.transportSecurity = .disabled
    let disabled = try CNPinnedSession(
      manager: nil, configuration: configuration.trusting(.customAnchors([pki.root.certificate])))
    #expect(try await disabled.data(from: legacy.url("/", hostName: "v1.api.test")).1.statusCode == 200)
  }

  @Test func anExceptionThatNamesNoHostIsRefusedAtCreation() throws {
    var configuration = CNPinnedSessionConfiguration()
    configuration.transportSecurity.exceptions = ["legacy..test": CNTransportSecurityException(allowsInsecureHTTPLoads: true)]
    #expect(
      throws: CNPinnedSessionError.invalidArgument(
        "transport-security exception \"legacy..test\": has an empty label (\"..\" or a leading dot)")
    ) {
      _ = try CNPinnedSession(manager: nil, configuration: configuration)
    }
    configuration.transportSecurity.exceptions = [
      "Legacy.test": CNTransportSecurityException(), "legacy.test.": CNTransportSecurityException(allowsInsecureHTTPLoads: true),
    ]
    #expect(
      throws: CNPinnedSessionError.invalidArgument(
        "transport-security exceptions \"Legacy.test\" and \"legacy.test.\" name the same host")
    ) {
      _ = try CNPinnedSession(manager: nil, configuration: configuration)
    }
  }
}
#endif
