// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

@Suite("Failure reports over TLS")
struct ReportingTests {
  struct Fixture {
    let api: LocalTLSServer
    let collector: LocalTLSServer
    let session: CNPinnedSession
    let manager: CNPinningManager
    let handled = Locked<[CNPinningFailureReport]>([])
    /// The session's configuration without its reporter, for a relaunch.
    let sessionConfiguration: CNPinnedSessionConfiguration

    /// api.test (pins that fail, or report-only) reports to reports.test, a loopback collector.
    init(
      enforce: Bool = true, pinCollector: Bool = false, headers: [String: String] = [:],
      unpinnedHosts: CNUnpinnedHostPolicy = .allow, trustCollector: Bool = true,
      uploads: CNPinningReportUpload.Content? = nil, keptIn directory: URL? = nil,
      collectorStatus: Locked<Int> = Locked(202), pinsExpired: Bool = false
    ) throws {
      let pki = try TestPKI()
      let collectorPKI = try TestPKI(
        root: "Collector Root", intermediate: "Collector CA", leaf: "reports.test", dnsNames: ["reports.test"])
      api = try LocalTLSServer.start(.init(identity: pki.leaf))
      collector = try LocalTLSServer.start(
        .init(identity: collectorPKI.leaf) { _ in .text("thanks", status: collectorStatus.withLock { $0 }) })
      let reportURI = URL(string: "https://reports.test:\(collector.port)/collect")!
      let failing = try CNChain([
        CNChainLink(.exact, "Some Other Root"), CNChainLink(.prefix, "R"), CNChainLink(.exact, "api.test"),
      ])
      var configuration: [String: CNConfiguration] = [
        "api.test": try CNConfiguration(
          chains: [failing], expirationDate: pinsExpired ? Date().addingTimeInterval(-60) : nil, enforce: enforce,
          reportURI: reportURI)
      ]
      if pinCollector {
        // The collector's own pins fail too, and it reports to itself: that must not recurse.
        configuration["reports.test"] = try CNConfiguration(chains: [failing], reportURI: reportURI)
      }
      manager = try CNPinningManager(configuration: configuration)
      var sessionConfiguration = resolving(["api.test"], to: api)
      sessionConfiguration.resolve += resolving(["reports.test"], to: collector).resolve
      sessionConfiguration.httpAdditionalHeaders = headers
      let handled = self.handled
      let handler: @Sendable (CNPinningFailureReport) -> Void = { report in handled.withLock { $0.append(report) } }
      sessionConfiguration.failureReporter =
        directory.map { CNPinningReporter(handler: handler, uploads: uploads ?? .minimal, appVersion: nil, keepingUploadsIn: $0) }
        ?? uploads.map { CNPinningReporter(handler: handler, uploads: $0, appVersion: "4.2.0 (17)") }
        ?? CNPinningReporter(handler: handler)
      sessionConfiguration = sessionConfiguration.trusting(
        .customAnchors([pki.root.certificate] + (trustCollector ? [collectorPKI.root.certificate] : [])),
        unpinnedHosts: unpinnedHosts)
      session = try CNPinnedSession(manager: manager, configuration: sessionConfiguration)
      self.sessionConfiguration = sessionConfiguration
    }

    /// The app launched again: a new session and a new reporter that keeps its uploads in
    /// `directory`, talking to the same servers.
    func relaunch(keepingUploadsIn directory: URL) throws -> CNPinnedSession {
      var configuration = sessionConfiguration
      configuration.failureReporter = CNPinningReporter(uploads: .minimal, appVersion: nil, keepingUploadsIn: directory)
      return try CNPinnedSession(manager: manager, configuration: configuration)
    }
  }

  @Test func aFailureIsPostedOnceAsJSON() async throws {
    let fixture = try Fixture()
    let url = fixture.api.url("/", hostName: "api.test")
    _ = try #require((await error(of: { _ = try await fixture.session.data(from: url) }))?.pinFailure, "expected a pin mismatch")
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    let upload = try #require(fixture.collector.requests.first)
    #expect(upload.method == "POST")
    #expect(upload.target == "/collect")
    #expect(upload.header("Content-Type") == "application/json")
    let report = try JSONDecoder.iso8601.decode(CNPinningReportUpload.self, from: upload.body)
    #expect(report.version == 2)
    #expect(report.content == .minimal)
    #expect(report.host == "api.test")
    #expect(report.port == fixture.api.port)
    #expect(report.enforced)
    #expect(report.failedRule == "chainSet")
    #expect(report.domain == "api.test")

    // The identical failure again: reported to the handler, not uploaded a second time.
    _ = await error(of: { _ = try await fixture.session.data(from: url) })
    #expect(await eventually(within: 30) { fixture.handled.withLock { $0.count } == 2 })
    await fixture.session.failureReportUploadsSettled()
    #expect(fixture.collector.requests.count == 1)
    #expect(fixture.api.requests.isEmpty)
  }

  /// A host whose pins expired is no longer pinned (the request goes on under the unpinned-host
  /// rule), and the first request to it reports the expiry, through the session as through a
  /// challenge.
  @Test func pinsThatExpiredAreReportedOnceThroughTheSession() async throws {
    let fixture = try Fixture(pinsExpired: true)
    let url = fixture.api.url("/", hostName: "api.test")
    for _ in 0..<2 { _ = try await fixture.session.data(from: url) }
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    #expect(fixture.handled.withLock { $0.map(\.host) } == ["api.test"])
  }

  @Test func anUploadCarriesNoneOfTheAppsHeaders() async throws {
    let secrets = ["Authorization": "Bearer secret", "Cookie": "session=1", "X-Api-Key": "key"]
    let fixture = try Fixture(headers: secrets)
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    let upload = try #require(fixture.collector.requests.first)
    for name in secrets.keys { #expect(upload.header(name) == nil, "the report carried \(name)") }
  }

  /// The report URI is the app's own: an app that refuses unpinned hosts still gets its
  /// reports out (issue 54, item 2; before, they went under the app's pins and its rule).
  @Test func anUploadGoesToTheAppsReportURIWhateverItsUnpinnedHostRule() async throws {
    let fixture = try Fixture(unpinnedHosts: .deny)
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
  }

  /// Normal trust still applies to the upload: a collector whose chain the session's trust
  /// does not verify gets nothing.
  @Test func anUploadIsRefusedByNormalTrust() async throws {
    let fixture = try Fixture(trustCollector: false)
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.handled.withLock { $0.count } == 1 })
    await fixture.session.failureReportUploadsSettled()
    #expect(fixture.collector.requests.isEmpty)
  }

  @Test func reportOnlyLetsTheRequestThroughAndReports() async throws {
    let fixture = try Fixture(enforce: false)
    let (data, _) = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test"))
    #expect(String(data) == "hello")
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    let report = try JSONDecoder.iso8601.decode(
      CNPinningReportUpload.self, from: try #require(fixture.collector.requests.first).body)
    #expect(!report.enforced)
  }

  /// By default an upload leaves out what could identify the user (issue 54, item 3): a CA the
  /// configuration does not name travels as a digest of its name, with no key, no reason and no
  /// configuration; the names the configuration holds are the app's own. It says which app,
  /// library, pins and platform reported. Before, the whole report was uploaded.
  @Test func anUploadIsMinimalByDefault() async throws {
    let fixture = try Fixture()
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    let body = try #require(fixture.collector.requests.first).body
    let upload = try JSONDecoder.iso8601.decode(CNPinningReportUpload.self, from: body)
    let handled = try #require(fixture.handled.withLock { $0.first })
    // Test Root X1 is not among the configured names ("Some Other Root", prefix "R", "api.test").
    let rootDigest = try OpenSSLReference.sha256Base64(Array("Test Root X1".utf8))
    #expect(upload.verifiedChain.map(\.configured) == [false, true, true])
    #expect(upload.verifiedChain.map(\.commonName) == [nil, "R11", "api.test"])
    #expect(upload.verifiedChain.map(\.commonNameSHA256) == [rootDigest, nil, nil])
    #expect(upload.verifiedChain.allSatisfy { $0.spkiSHA256 == nil && $0.certificateSHA256 == nil })
    #expect(upload.reason == nil && upload.configuration == nil)
    let text = String(decoding: body, as: UTF8.self)
    #expect(!text.contains("Test Root X1"), "\(text)")
    for certificate in handled.verifiedChain { #expect(!text.contains(certificate.spkiSHA256)) }
    // Which app, library, pins and platform reported.
    #expect(upload.appVersion == Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String)
    #expect(upload.libraryVersion == CNPinningVersion.current)
    #expect(upload.platform == "Linux")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    #expect(upload.pinsDigest == (try OpenSSLReference.sha256Base64(Array(try encoder.encode(handled.configuration)))))
  }

  /// An app that opts in sends the whole chain, the reason and the configuration, and names its version.
  @Test func anAppThatOptsInUploadsTheChainsNames() async throws {
    let fixture = try Fixture(uploads: .full)
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    let upload = try JSONDecoder.iso8601.decode(
      CNPinningReportUpload.self, from: try #require(fixture.collector.requests.first).body)
    let handled = try #require(fixture.handled.withLock { $0.first })
    #expect(upload.content == .full)
    #expect(upload.verifiedChain.map(\.commonName) == ["Test Root X1", "R11", "api.test"])
    #expect(upload.verifiedChain.map(\.configured) == [false, true, true])
    #expect(upload.verifiedChain.map(\.spkiSHA256) == handled.verifiedChain.map(\.spkiSHA256))
    #expect(upload.reason == handled.reason)
    #expect(upload.configuration == handled.configuration)
    #expect(upload.appVersion == "4.2.0 (17)")
  }

  /// A lockout that also refuses the collector (its pins fail too, as when it shares the pinned
  /// domain's CA): the report still arrives, through none of the app's pins (issue 54, item 2:
  /// before, the upload was refused and the lockout went unreported), and nothing recurses.
  @Test func aReportReachesACollectorThePinsRefuseAndIsNotReportedInTurn() async throws {
    let fixture = try Fixture(pinCollector: true)
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    await fixture.session.failureReportUploadsSettled()
    #expect(fixture.collector.requests.count == 1)
    #expect(fixture.handled.withLock { $0.map(\.host) } == ["api.test"])  // and not reported in turn
  }
}

/// Uploads kept on disk (issue 54, item 2): an upload the collector did not take waits in the
/// app's folder and goes at the next launch once its backoff has passed; one it refused for good
/// goes; a file that is not an upload never stops a launch.
@Suite("Failure report uploads kept across launches")
struct KeptUploadTests {
  /// The kept files' contents, by name.
  static func kept(in directory: URL) throws -> [String: [String: Any]] {
    var files: [String: [String: Any]] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
      let data = try Data(contentsOf: directory.appendingPathComponent(name))
      files[name] = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
    return files
  }

  /// Moves every kept upload's next attempt into the past, as the documented file format allows:
  /// time passing, without waiting a minute.
  static func makeDue(in directory: URL) throws {
    for (name, var object) in try kept(in: directory) {
      object["notBefore"] = Date().timeIntervalSince1970 - 1
      try JSONSerialization.data(withJSONObject: object).write(to: directory.appendingPathComponent(name))
    }
  }

  @Test func anUploadTheCollectorMissedGoesAtTheNextLaunch() async throws {
    let directory = try TemporaryFolder()
    let status = Locked(503)
    let fixture = try ReportingTests.Fixture(keptIn: directory.url, collectorStatus: status)
    let start = Date()
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    await fixture.session.failureReportUploadsSettled()
    let kept = try Self.kept(in: directory.url)
    let file = try #require(kept.values.first, "the missed upload was not kept")
    #expect(kept.count == 1)
    #expect(file["attempts"] as? Int == 1)
    let notBefore = try #require(file["notBefore"] as? Double)
    #expect(notBefore >= start.timeIntervalSince1970 + 59 && notBefore <= Date().timeIntervalSince1970 + 61)
    let firstBody = try #require(fixture.collector.requests.first).body

    // The next launch, before its backoff: nothing is sent.
    status.withLock { $0 = 202 }
    let early = try fixture.relaunch(keepingUploadsIn: directory.url)
    await early.failureReportUploadsSettled()
    #expect(fixture.collector.requests.count == 1)
    // A launch after it: the kept upload goes, as it was, without any request of the app's.
    try Self.makeDue(in: directory.url)
    let later = try fixture.relaunch(keepingUploadsIn: directory.url)
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 2 })
    await later.failureReportUploadsSettled()
    #expect(fixture.collector.requests.last?.body == firstBody)
    #expect(try Self.kept(in: directory.url).isEmpty)
    #expect(fixture.api.requests.isEmpty)
  }

  @Test func anUploadTheCollectorRefusesForGoodIsNotKept() async throws {
    let directory = try TemporaryFolder()
    let fixture = try ReportingTests.Fixture(keptIn: directory.url, collectorStatus: Locked(400))
    _ = await error(of: { _ = try await fixture.session.data(from: fixture.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { fixture.collector.requests.count == 1 })
    await fixture.session.failureReportUploadsSettled()
    #expect(try Self.kept(in: directory.url).isEmpty)
  }

  @Test func aFileThatIsNoUploadIsRemovedAndTheOthersStillGo() async throws {
    let directory = try TemporaryFolder()
    let status = Locked(503)
    let missed = try ReportingTests.Fixture(keptIn: directory.url, collectorStatus: status)
    _ = await error(of: { _ = try await missed.session.data(from: missed.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { missed.collector.requests.count == 1 })
    await missed.session.failureReportUploadsSettled()
    try Self.makeDue(in: directory.url)
    for (name, text) in [
      ("00000000000000000001-a.upload.json", "{not json"), ("00000000000000000002-b.upload.json", #"{"format": "other"}"#),
      ("00000000000000000003-c.upload.json", String(repeating: " ", count: 2 << 20)),
    ] {
      try Data(text.utf8).write(to: directory.url.appendingPathComponent(name))
    }
    status.withLock { $0 = 202 }
    let later = try missed.relaunch(keepingUploadsIn: directory.url)
    #expect(await eventually(within: 30) { missed.collector.requests.count == 2 })
    await later.failureReportUploadsSettled()
    #expect(try Self.kept(in: directory.url).isEmpty)
  }
}

extension KeptUploadTests {
  /// A kept upload whose next attempt a file puts absurdly far (edited, restored, or written by
  /// another process of an app group): the launch plans its round bounded (`BoundedInterval`)
  /// instead of trapping in `Task.sleep` (issue 66, N11); due ones still go. JSON has no
  /// infinity or NaN, so the largest numbers a file can hold are the ones tried.
  @Test func aKeptUploadDueAtAnyTimeNeverStopsALaunch() async throws {
    let directory = try TemporaryFolder()
    let status = Locked(503)
    let missed = try ReportingTests.Fixture(keptIn: directory.url, collectorStatus: status)
    _ = await error(of: { _ = try await missed.session.data(from: missed.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { missed.collector.requests.count == 1 })
    await missed.session.failureReportUploadsSettled()
    let (name, object) = try #require(try Self.kept(in: directory.url).first)
    for (index, notBefore) in [1e300, Double.greatestFiniteMagnitude, 0, -1].enumerated() {
      var copy = object
      copy["notBefore"] = notBefore
      try JSONSerialization.data(withJSONObject: copy).write(to: directory.url.appendingPathComponent("\(index)\(name)"))
    }
    try FileManager.default.removeItem(at: directory.url.appendingPathComponent(name))
    status.withLock { $0 = 202 }
    let later = try missed.relaunch(keepingUploadsIn: directory.url)
    #expect(await eventually(within: 30) { missed.collector.requests.count == 3 })
    await later.failureReportUploadsSettled()
    #expect(try Self.kept(in: directory.url).count == 2)
  }
}

extension KeptUploadTests {
  /// A kept file names its own URL: one the pins in force do not name as a report URI (planted,
  /// or left from pins that changed) is dropped, not sent; the configured one still goes
  /// (issue 65, item 7).
  @Test func aKeptUploadGoesOnlyToAReportURIThePinsName() async throws {
    let directory = try TemporaryFolder()
    let status = Locked(503)
    let missed = try ReportingTests.Fixture(keptIn: directory.url, collectorStatus: status)
    _ = await error(of: { _ = try await missed.session.data(from: missed.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { missed.collector.requests.count == 1 })
    await missed.session.failureReportUploadsSettled()
    try Self.makeDue(in: directory.url)
    let (name, object) = try #require(try Self.kept(in: directory.url).first)
    var planted = object
    planted["url"] = "https://reports.test:\(missed.collector.port)/elsewhere"
    try JSONSerialization.data(withJSONObject: planted).write(to: directory.url.appendingPathComponent("0" + name))
    status.withLock { $0 = 202 }
    let later = try missed.relaunch(keepingUploadsIn: directory.url)
    #expect(await eventually(within: 30) { missed.collector.requests.count == 2 })
    await later.failureReportUploadsSettled()
    #expect(missed.collector.requests.map(\.target) == ["/collect", "/collect"])
    #expect(try Self.kept(in: directory.url).isEmpty, "the planted upload was kept")
  }

  /// A FIFO named like a kept upload (or a device, a socket) is refused at once: the launch and
  /// the uploads beside it go on (issue 65, item 7: it blocked the session's start).
  @Test func aFIFONamedLikeAnUploadBlocksNothing() async throws {
    let directory = try TemporaryFolder()
    let status = Locked(503)
    let missed = try ReportingTests.Fixture(keptIn: directory.url, collectorStatus: status)
    _ = await error(of: { _ = try await missed.session.data(from: missed.api.url("/", hostName: "api.test")) })
    #expect(await eventually(within: 30) { missed.collector.requests.count == 1 })
    await missed.session.failureReportUploadsSettled()
    try Self.makeDue(in: directory.url)
    #expect(mkfifo(directory.url.appendingPathComponent("00000000000000000001-fifo.upload.json").path, 0o600) == 0)
    status.withLock { $0 = 202 }
    let later = try missed.relaunch(keepingUploadsIn: directory.url)
    #expect(await eventually(within: 30) { missed.collector.requests.count == 2 })
    await later.failureReportUploadsSettled()
    #expect(missed.collector.requests.count == 2)
  }
}

/// A temporary folder, removed when the value goes.
final class TemporaryFolder: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("cnpinning-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}

extension JSONDecoder {
  static var iso8601: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }
}
#endif
