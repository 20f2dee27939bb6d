// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
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

    /// api.test (pins that fail, or report-only) reports to reports.test, a loopback collector.
    init(
      enforce: Bool = true, pinCollector: Bool = false, headers: [String: String] = [:],
      unpinnedHosts: CNUnpinnedHostPolicy = .allow, trustCollector: Bool = true,
      uploads: CNPinningReportUpload.Content? = nil
    ) throws {
      let pki = try TestPKI()
      let collectorPKI = try TestPKI(
        root: "Collector Root", intermediate: "Collector CA", leaf: "reports.test", dnsNames: ["reports.test"])
      api = try LocalTLSServer.start(.init(identity: pki.leaf))
      collector = try LocalTLSServer.start(.init(identity: collectorPKI.leaf) { _ in .text("thanks", status: 202) })
      let reportURI = URL(string: "https://reports.test:\(collector.port)/collect")!
      let failing = try CNChain([
        CNChainLink(.exact, "Some Other Root"), CNChainLink(.prefix, "R"), CNChainLink(.exact, "api.test"),
      ])
      var configuration: [String: CNConfiguration] = [
        "api.test": try CNConfiguration(chains: [failing], enforce: enforce, reportURI: reportURI)
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
        uploads.map { CNPinningReporter(handler: handler, uploads: $0, appVersion: "4.2.0 (17)") }
        ?? CNPinningReporter(handler: handler)
      session = try CNPinnedSession(
        manager: manager,
        configuration: sessionConfiguration.trusting(
          .customAnchors([pki.root.certificate] + (trustCollector ? [collectorPKI.root.certificate] : [])),
          unpinnedHosts: unpinnedHosts))
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

extension JSONDecoder {
  static var iso8601: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }
}
#endif
