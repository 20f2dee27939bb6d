// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningCurl
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// TLS session resumption: a resumed session sends no certificates, so it is judged on the chain
/// verified when the session was made, against the pins and the clock at the time of the request,
/// and it is offered only to the host, port and trust it was verified for.
@Suite("TLS session resumption", .tags(.concurrency))
struct ResumptionTests {
  /// A server that closes every connection after one request, so that each request resumes.
  static func oneRequestPerConnection(_ identity: TestIdentity, maximumTLSVersion: CNTLSVersion = .tls13)
    -> LocalTLSServer.Configuration
  {
    var setup = LocalTLSServer.Configuration(identity: identity)
    setup.keepAlive = false
    setup.maximumTLSVersion = maximumTLSVersion
    return setup
  }

  /// Five connections, one request each: every one is judged and none refused. Where libcurl
  /// keeps TLS sessions as objects (before 8.10.0) the last four resume; where it keeps them
  /// serialized, resumption is off and all five are full, verified handshakes (before, every
  /// resumed connection there was refused for carrying no chain). This machine's libcurl is
  /// 7.88.1; `LD_LIBRARY_PATH` at a newer build runs the other branch.
  @Test(arguments: [CNTLSVersion.tls12, .tls13])
  func everyResumedConnectionIsJudged(_ version: CNTLSVersion) async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(Self.oneRequestPerConnection(pki.leaf, maximumTLSVersion: version))
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let events = ConnectionReuseTests.EventCounter()
    session.setConnectionObserver { events.record($0) }
    for _ in 0..<5 { #expect(try await session.data(from: server.url("/", hostName: "api.test")).1.statusCode == 200) }
    let resumed = CurlVersion.loaded.keepsTLSSessionObjects ? 4 : 0
    #expect(server.handshakes == 5)
    #expect(server.resumedHandshakes == resumed)
    let counted = events.value
    #expect(
      counted.new == 5 - resumed && counted.resumed == resumed && counted.reused == 0 && counted.refused == 0, "\(counted)")
  }

  @Test(
    .enabled(
      if: CurlVersion.loaded.keepsTLSSessionObjects,
      "libcurl 8.10.0 and later keep TLS sessions serialized; the session leaves resumption off there"))
  func pinsChangedBetweenRequestsRefuseTheResumedSession() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(Self.oneRequestPerConnection(pki.leaf))
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate])))
    let events = Locked<[CNConnectionEvent]>([])
    session.setConnectionObserver { event in events.withLock { $0.append(event) } }
    let url = server.url("/", hostName: "api.test")
    #expect(try await session.data(from: url).1.statusCode == 200)

    session.manager = try otherRootPins()
    let details = try #require(await expectPinMismatch { _ = try await session.data(from: url) })
    #expect(details.presentedCommonNames == ["Test Root X1", "R11", "api.test"])
    #expect(await eventually { server.handshakes == 2 })
    #expect(server.resumedHandshakes == 1, "the refused request resumed the session")
    #expect(server.requests.count == 1, "nothing was sent on the refused connection")
    let last = try #require(events.withLock { $0.last })
    #expect(last.kind == .resumed && last.error != nil && last.presentedChain.isEmpty)

    // A refused session is not offered again: the next connection shows the server's chain afresh.
    session.manager = try matchingPins()
    #expect(try await session.data(from: url).1.statusCode == 200)
    #expect(server.resumptionOffers == 1 && server.resumedHandshakes == 1 && server.handshakes == 3)
  }

  @Test(
    .enabled(
      if: CurlVersion.loaded.keepsTLSSessionObjects,
      "libcurl 8.10.0 and later keep TLS sessions serialized; the session leaves resumption off there"))
  func aStoredChainWhoseLeafExpiredIsRefused() async throws {
    let root = try TestIdentity.root("Test Root X1")
    let intermediate = try root.issueIntermediate("R11")
    var spec = TestCertificateSpec.leaf("api.test", dnsNames: ["api.test"])
    spec.notAfter = 3600  // seconds from now
    let leaf = try intermediate.issue(spec)
    let server = try LocalTLSServer.start(Self.oneRequestPerConnection(leaf))
    // The session's clock, moved past the leaf's expiry instead of waiting for it.
    let shift = Locked<TimeInterval>(0)
    var configuration = resolving(to: server)
    configuration.clock = { Date().addingTimeInterval(shift.withLock { $0 }) }
    let session = try CNPinnedSession(
      manager: try matchingPins(), configuration: configuration.trusting(.customAnchors([root.certificate])))
    let url = server.url("/", hostName: "api.test")
    #expect(try await session.data(from: url).1.statusCode == 200)

    // Two hours on, the leaf has expired; the server still resumes the session.
    shift.withLock { $0 = 7200 }
    #expect(await error { _ = try await session.data(from: url) } == .certificateExpired(host: "api.test"))
    // The server counts the handshake when its side of it ends, which may be after the client
    // has already refused the connection.
    #expect(await eventually { server.handshakes == 2 })
    #expect(server.resumedHandshakes == 1, "the expiry was found on the resumed session, not by a new handshake")
    #expect(server.requests.count == 1)

    // The server renews its certificate; the refused session is not offered again, so the next
    // request sees the renewed chain rather than failing on the stored one until it times out.
    try server.replaceIdentity(try intermediate.issueLeaf("api.test", dnsNames: ["api.test"]))
    #expect(try await session.data(from: url).1.statusCode == 200)
    #expect(server.resumptionOffers == 1 && server.handshakes == 3)
  }

  @Test(
    .enabled(
      if: CurlVersion.loaded.keepsTLSSessionObjects,
      "libcurl 8.10.0 and later keep TLS sessions serialized; the session leaves resumption off there"))
  func aSessionIsOfferedOnlyToItsOwnHostPortAndTrust() async throws {
    let pki = try TestPKI(dnsNames: ["api.test", "other.test"])
    // Two servers that would resume each other's TLS 1.2 sessions: they share ticket keys.
    var setup = Self.oneRequestPerConnection(pki.leaf, maximumTLSVersion: .tls12)
    setup.sessionTicketKeys = LocalTLSServer.randomTicketKeys()
    let first = try LocalTLSServer.start(setup)
    let second = try LocalTLSServer.start(setup)
    var configuration = resolving(["api.test", "other.test"], to: first)
    configuration.resolve += resolving(["api.test"], to: second).resolve
    let session = try CNPinnedSession(manager: nil, configuration: configuration.trusting(.customAnchors([pki.root.certificate])))

    #expect(try await session.data(from: first.url("/", hostName: "api.test")).1.statusCode == 200)
    #expect(try await session.data(from: first.url("/", hostName: "other.test")).1.statusCode == 200)
    #expect(first.resumptionOffers == 0, "a session for api.test was offered to other.test")
    #expect(try await session.data(from: second.url("/", hostName: "api.test")).1.statusCode == 200)
    #expect(second.resumptionOffers == 0, "a session for port \(first.port) was offered to port \(second.port)")

    let otherTrust = try CNPinnedSession(
      manager: nil, configuration: configuration.trusting(.systemAndCustomAnchors([pki.root.certificate])))
    #expect(try await otherTrust.data(from: first.url("/", hostName: "api.test")).1.statusCode == 200)
    #expect(first.resumptionOffers == 0, "a session verified under one trust was offered under another")

    // Controls: the same host and port is offered its session, and the second server resumes a
    // session of the first when a client offers it.
    #expect(try await session.data(from: first.url("/", hostName: "api.test")).1.statusCode == 200)
    #expect(first.resumptionOffers == 1 && first.resumedHandshakes == 1)
    let reused = try await crossServerResumption(from: first.port, to: second.port, anchor: pki.root.certificate)
    #expect(reused, "the servers do not share sessions, so the port check proves nothing")
  }
}

/// Whether `openssl s_client` resumes, on port `to`, a TLS 1.2 session it made on port `from`.
func crossServerResumption(from: Int, to: Int, anchor: CNCertificate) async throws -> Bool {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let anchorFile = directory.appendingPathComponent("anchor.pem")
  let sessionFile = directory.appendingPathComponent("session.pem")
  try anchor.pemEncoded.write(to: anchorFile, atomically: true, encoding: .utf8)
  let common = ["-tls1_2", "-CAfile", anchorFile.path, "-servername", "api.test"]
  _ = try await runOpenSSL(["s_client", "-connect", "127.0.0.1:\(from)", "-sess_out", sessionFile.path] + common)
  let output = try await runOpenSSL(["s_client", "-connect", "127.0.0.1:\(to)", "-sess_in", sessionFile.path] + common)
  return output.contains("Reused, TLSv1.2")
}

/// Runs `openssl` with standard input at end of file; returns what it printed.
func runOpenSSL(_ arguments: [String], input: String? = nil) async throws -> String {
  let run = try await TestProcess.run("/usr/bin/env", ["openssl"] + arguments, input: Data((input ?? "").utf8))
  return String(decoding: run.stdout + run.stderr, as: UTF8.self)
}
#endif
