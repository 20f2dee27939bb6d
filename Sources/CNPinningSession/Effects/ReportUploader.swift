@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs failure reports as JSON to the configuration's `reportURI`, off the connection's path:
/// an upload never delays or fails the connection it reports on, and the uploads' own failures
/// are never reported (the uploading session does not report).
package final class ReportUploader: Sendable {
  private let configuration: CNPinnedSessionConfiguration
  private let makeTransport: TransportMaker
  private let session = Locked<SessionEngine?>(nil)
  private let uploads = Locked(Uploads())
  private let nextRound = Locked<Task<Void, Never>?>(nil)
  /// The report URIs the pins in force name: where kept uploads may go.
  private let reportURIs = Locked<Set<URL>>([])

  /// How many uploads are running, and who waits for none to be.
  private struct Uploads {
    var running = 0
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  /// Uploads go through a session of their own with the reporting one's trust and transport
  /// settings and **none of the app's pins** (nor its unpinned-host rule), as TrustKit sends its
  /// reports: a lockout refuses the app's pinned hosts, and the report host often shares their
  /// domain or CA, so reports sent under the pins would go silent exactly when they matter
  /// (issue 54, item 2). The report URI is the app's own configuration, and normal trust and
  /// host-name checks still apply. Nothing of what the app sends goes with them: no additional
  /// headers (they may hold credentials), no redirects, no reports of its own.
  package init(configuration reporting: CNPinnedSessionConfiguration, makeTransport: @escaping TransportMaker) {
    self.makeTransport = makeTransport
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = reporting.trust
    configuration.unpinnedHosts = .allow
    configuration.transportSecurity = reporting.transportSecurity
    configuration.timeoutIntervalForRequest = reporting.timeoutIntervalForRequest
    configuration.timeoutIntervalForResource = reporting.timeoutIntervalForResource
    configuration.resolve = reporting.resolve
    // Reports take the app's route out (a corporate proxy); proxy credentials go to the proxy only.
    configuration.proxy = reporting.proxy
    configuration.noProxy = reporting.noProxy
    configuration.followsRedirects = false
    self.configuration = configuration
  }

  /// Starts the upload of a report's `body` (`CNPinningReporter.upload(of:)`) and returns at
  /// once. With a `queue` the upload is kept on disk first, and stays there, to be sent again
  /// after a backoff, until the collector takes it or refuses it for good.
  func upload(_ body: Data, to url: URL, keptIn queue: UploadQueue?) {
    reportURIs.withLock { _ = $0.insert(url) }
    let name = queue?.add(body, to: url)
    run { [self] in
      let sent = await send(body, to: url)
      if let queue, let name { record(sent, of: name, in: queue) }
    }
  }

  /// Sends the uploads `queue` kept that are due (at a session's start: those of earlier
  /// launches), and plans the next round for when the next one is due. Only to a report URI the
  /// configuration in force names (`reportURIs`): a kept file can name any https URL (planted,
  /// or left from pins that changed), and is then dropped, saying so.
  func sendKept(_ queue: UploadQueue, to reportURIs: Set<URL>) {
    self.reportURIs.withLock { $0.formUnion(reportURIs) }
    sendKept(queue)
  }

  /// ``sendKept(_:to:)`` to the report URIs known so far.
  private func sendKept(_ queue: UploadQueue) {
    run { [self] in
      let reportURIs = self.reportURIs.withLock { $0 }
      for (name, entry) in queue.takeDue() {
        guard reportURIs.contains(entry.url) else {
          CNPinningLog.warn(
            "a kept failure report upload to \(entry.url.absoluteString) was dropped: the pins in force name no such reportURI")
          queue.failed(name, retryable: false)
          continue
        }
        record(await send(entry.body, to: entry.url), of: name, in: queue)
      }
      scheduleNextRound(queue)
    }
  }

  private func send(_ body: Data, to url: URL) async -> UploadRetryPolicy.Outcome {
    guard let session = try? uploadingSession() else { return .failed }
    let request = SessionRequest(
      method: "POST", url: url, fields: [CNHTTPField(name: "Content-Type", value: "application/json")],
      body: .data(body), timeout: 30)
    let answer = try? await session.exchange(request, into: BodyInMemory.self)
    return UploadRetryPolicy.Outcome(status: answer?.0.statusCode)
  }

  private func record(_ sent: UploadRetryPolicy.Outcome, of name: String, in queue: UploadQueue) {
    switch sent {
    case .delivered: queue.delivered(name)
    case .refused: queue.failed(name, retryable: false)
    case .failed:
      queue.failed(name, retryable: true)
      scheduleNextRound(queue)
    }
  }

  /// One sleeping task per uploader waits for the next kept upload to be due (never past the
  /// uploader's life: it holds the uploader weakly).
  private func scheduleNextRound(_ queue: UploadQueue) {
    guard let due = queue.nextDue() else { return }
    // A kept file's date, bounded: at least a second, at most a year (`BoundedInterval`).
    let delay = max(BoundedInterval(due.timeIntervalSinceNow) ?? .second, .second)
    nextRound.withLock { task in
      task?.cancel()
      task = Task.detached { [weak self] in
        try? await Task.sleep(for: delay.duration)
        guard !Task.isCancelled, let self else { return }
        self.sendKept(queue)
      }
    }
  }

  /// Runs `work` off the caller's path, counted for `settle`.
  private func run(_ work: @escaping @Sendable () async -> Void) {
    uploads.withLock { $0.running += 1 }
    Task.detached { [self] in
      defer { uploadEnded() }
      await work()
    }
  }

  /// Returns once no upload is running: every upload started before the call has ended (sent,
  /// refused or failed).
  func settle() async {
    await withCheckedContinuation { continuation in
      let idle = uploads.withLock { uploads -> Bool in
        if uploads.running == 0 { return true }
        uploads.waiting.append(continuation)
        return false
      }
      if idle { continuation.resume() }
    }
  }

  private func uploadEnded() {
    let waiting = uploads.withLock { uploads -> [CheckedContinuation<Void, Never>] in
      uploads.running -= 1
      guard uploads.running == 0 else { return [] }
      defer { uploads.waiting = [] }
      return uploads.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  deinit { nextRound.withLock { $0?.cancel() } }

  private func uploadingSession() throws -> SessionEngine {
    try session.withLock { existing in
      if let existing { return existing }
      let created = try SessionEngine(
        manager: nil, configuration: configuration, reportsFailures: false, makeTransport: makeTransport)
      existing = created
      return created
    }
  }
}
