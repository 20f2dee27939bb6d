@_spi(Locking) import CNPinning
import Foundation
import Testing

@testable import CNPinningSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the Apple transport decides about a hop, moved out of its Apple-only file (issue 53,
/// item 3) so that Linux runs it: the request URLSession is given, how a failed task's error
/// becomes the session's, and the URLSession settings both Apple sessions start from.
@Suite struct URLSessionHopTests {
  static func hop(
    _ request: SessionRequest, cookies: HTTPCookieStorage? = nil, withheld: CredentialHeaders? = nil,
    additionalHeaders: [String: String] = [:], connectOnly: Bool = false
  ) throws -> Hop {
    let target = try RequestTarget(request.url)
    return Hop(
      request: request, target: target,
      fields: HopFields(request, at: target, additional: additionalHeaders, withheld: withheld, cookies: cookies),
      manager: nil, rules: TransportRules(minimumTLSVersion: .tls12, isEnforced: false), destination: .memory,
      progress: nil, wantsPresentedChain: false, connectOnly: connectOnly,
      effects: ConnectionEffects(reporter: CNPinningReporter(uploads: .minimal, appVersion: nil), uploader: nil),
      observer: nil)
  }

  static let url = URL(string: "https://api.test/items")!
  static func noChunks(_ upload: ChunkedUpload, _ host: String) -> InputStream? { nil }

  @Test func theRequestCarriesTheConfigurationsFieldsAndTheHopsCookies() throws {
    let cookies = URLSessionConfiguration.ephemeral.httpCookieStorage!
    cookies.setCookie(
      HTTPCookie(properties: [.name: "id", .value: "7", .domain: "api.test", .path: "/", .secure: "TRUE"])!)
    let request = try URLSessionHop.request(
      for: Self.hop(
        SessionRequest(url: Self.url, fields: [CNHTTPField(name: "Accept", value: "a/b")]), cookies: cookies,
        additionalHeaders: ["User-Agent": "t/1"]), chunkStream: Self.noChunks)
    #expect(request.value(forHTTPHeaderField: "Accept") == "a/b")
    #expect(request.value(forHTTPHeaderField: "User-Agent") == "t/1")
    #expect(request.value(forHTTPHeaderField: "Cookie") == "id=7")
  }

  @Test func bodiesGoOutAsStreamsWithTheirLengthsAndAProbeIsRefused() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("hop-\(UUID()).bin")
    try Data(repeating: 7, count: 1234).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let upload = try URLSessionHop.request(
      for: Self.hop(SessionRequest(method: "PUT", url: Self.url, body: .upload(.file(file)))),
      chunkStream: Self.noChunks)
    #expect(upload.httpBodyStream != nil && upload.value(forHTTPHeaderField: "Content-Length") == "1234")

    let missing = FileManager.default.temporaryDirectory.appendingPathComponent("hop-missing-\(UUID())")
    #expect(throws: CNPinnedSessionError.invalidArgument("cannot read the upload file \(missing.path)")) {
      try URLSessionHop.request(
        for: Self.hop(SessionRequest(method: "PUT", url: Self.url, body: .upload(.file(missing)))),
        chunkStream: Self.noChunks)
    }
    // A sequence: the stream the writer makes, its length when stated; no stream is a setup failure.
    let chunks = ChunkedUpload(AsyncStream<Data> { $0.finish() }, length: 10)
    let made = InputStream(data: Data())
    let sized = try URLSessionHop.request(
      for: Self.hop(SessionRequest(method: "POST", url: Self.url, body: .upload(.chunks(chunks)))),
      chunkStream: { _, host in host == "api.test" ? made : nil })
    #expect(sized.httpBodyStream === made && sized.value(forHTTPHeaderField: "Content-Length") == "10")
    #expect(throws: CNPinnedSessionError.self) {
      try URLSessionHop.request(
        for: Self.hop(SessionRequest(method: "POST", url: Self.url, body: .upload(.chunks(chunks)))),
        chunkStream: Self.noChunks)
    }
    #expect(throws: CNPinnedSessionError.self) {
      try URLSessionHop.request(
        for: Self.hop(SessionRequest(url: Self.url), connectOnly: true), chunkStream: Self.noChunks)
    }
  }

  /// A failed task's error, first cause first: the body's own failure (its task was cancelled for
  /// it), the session's error, the challenge's rejection, the transport closed, URLSession's.
  @Test func aFailedTasksErrorIsTranslatedFirstCauseFirst() async throws {
    let failing = ChunkedUpload(AsyncThrowingStream<Data, Error> { $0.finish(throwing: URLError(.badURL)) }, length: nil)
    _ = try? await failing.next(host: "api.test")
    let bodyFailure = try #require(failing.failure)
    let rejection = CNPinnedSessionError.connectionNotJudged(host: "api.test", reason: "test")
    func failure(_ error: Error, upload: UploadSource? = nil, rejection: CNPinnedSessionError? = nil, closed: Bool = false)
      -> CNPinnedSessionError
    {
      URLSessionHop.failure(
        error, upload: upload, rejection: rejection, sessionClosed: closed, host: "api.test", timeout: 9, trust: .system)
    }
    let cancelled = URLError(.cancelled)
    #expect(failure(cancelled, upload: .chunks(failing), rejection: rejection, closed: true) == bodyFailure)
    #expect(
      failure(CNPinnedSessionError.responseTooLarge(host: "api.test", limit: 1), rejection: rejection)
        == .responseTooLarge(host: "api.test", limit: 1))
    #expect(failure(cancelled, rejection: rejection, closed: true) == rejection)
    #expect(failure(cancelled, closed: true) == .sessionInvalidated)
    #expect(failure(cancelled) == .cancelled)
    #expect(failure(URLError(.timedOut)) == .timedOut(host: "api.test", seconds: 9))
    #expect(failure(URLError(.dnsLookupFailed)) == .cannotResolveHost(host: "api.test"))
    #expect(
      failure(URLError(.appTransportSecurityRequiresSecureConnection)) == .transportSecurity(.insecureHTTP(host: "api.test")))
    // Under custom anchors a trust failure says what App Transport Security needs.
    let anchored = URLSessionHop.failure(
      URLError(.serverCertificateUntrusted), host: "api.test", timeout: 9, trust: .customAnchors([]))
    #expect(anchored.code == .untrustedChain)
    #expect(anchored.reason?.contains("NSExceptionAllowsInsecureHTTPLoads") == true)
    #expect(
      URLSessionHop.leaseFailure(CancellationError(), sessionClosed: true, host: "api.test", upload: nil) == .sessionInvalidated)
    #expect(URLSessionHop.leaseFailure(CancellationError(), sessionClosed: false, host: "api.test", upload: nil) == .cancelled)
    #expect(
      URLSessionHop.leaseFailure(SessionRotationClosed(), sessionClosed: false, host: "api.test", upload: nil)
        == .sessionInvalidated)
  }

  /// A verdict that retires: the URLSession is retired before the refusal is thrown.
  @Test func aVerdictRetiresBeforeItRefuses() {
    let retired = Locked(0)
    let refusal = CNPinnedSessionError.connectionNotJudged(host: "api.test", reason: "test")
    #expect(throws: refusal) {
      try ConnectionVerdicts.Completion(judgements: [], refusal: refusal, retire: true).settle { retired.withLock { $0 += 1 } }
    }
    #expect(throws: Never.self) {
      try ConnectionVerdicts.Completion(judgements: [], refusal: nil, retire: false).settle { retired.withLock { $0 += 1 } }
    }
    #expect(retired.withLock { $0 } == 1)
  }

  /// A stream's head is handed once: before or after the hop waits, the first delivery counts.
  @Test func aStreamsHeadIsHandedOnce() async throws {
    let early = ResponseHeadHandOff<Int>()
    early.deliver(.success(1))
    early.deliver(.success(2))
    #expect(try await early.response() == 1)
    let late = ResponseHeadHandOff<Int>()
    let waiting = Task { try await late.response() }
    try await Task.sleep(for: .milliseconds(20))
    late.deliver(.failure(.cancelled))
    late.deliver(.success(3))
    await #expect(throws: CNPinnedSessionError.cancelled) { try await waiting.value }
  }

  @Test func bothAppleSessionsStartFromTheConfigurationsSettings() {
    var configuration = CNPinnedSessionConfiguration()
    configuration.timeoutIntervalForRequest = 12
    configuration.proxy = .direct
    let direct = configuration.urlSessionSettings()
    #expect(direct.timeoutIntervalForRequest == 12 && direct.urlCache == nil)
    #expect(direct.connectionProxyDictionary?.isEmpty == true)
    configuration.proxy = .environment
    #expect(configuration.urlSessionSettings().connectionProxyDictionary == nil)
    #expect(configuration.urlSessionMinimumTLSVersion == 0x0303)
    #expect(configuration.bodyLimit(for: .memory) == configuration.maximumResponseBodySize)
    #expect(configuration.bodyLimit(for: .file(FileHandle.nullDevice)) == configuration.maximumDownloadSize)
  }
}
