import Foundation

/// A manager's failure-report state: the app's handler, which expiries were already reported,
/// and when each identical report was last uploaded.
final class FailureReporting: Sendable {
  /// Identical reports are uploaded at most once in this many seconds per process.
  static let uploadInterval: TimeInterval = 24 * 3600
  /// Distinct reports for one configured domain are uploaded at most this often per hour: an
  /// interceptor presenting a fresh chain on every connection would otherwise cause one upload
  /// per connection.
  static let uploadsPerDomainPerHour = 10
  /// How many uploaded reports are remembered for de-duplication; the oldest are forgotten first.
  static let maximumRememberedUploads = 1000

  private struct State {
    var handler: (@Sendable (CNPinningFailureReport) -> Void)?
    var expiredDomains: Set<String> = []
    var lastUpload: [String: Date] = [:]
    /// Upload times in the last hour, by configured domain.
    var recentUploads: [String: [Date]] = [:]
  }

  private let state = Locked(State())
  private let queue = DispatchQueue(label: "CNPinning.failure-reports")

  func setHandler(_ handler: (@Sendable (CNPinningFailureReport) -> Void)?) {
    state.withLock { $0.handler = handler }
  }

  /// Hands `report` to the app's handler on a private queue, so that a slow handler never
  /// delays the connection the report is about.
  func deliver(_ report: CNPinningFailureReport) {
    guard let handler = state.withLock({ $0.handler }) else { return }
    queue.async { handler(report) }
  }

  /// Whether the expiry of `domain` is being reported for the first time.
  func firstExpiry(of domain: String) -> Bool {
    state.withLock { $0.expiredDomains.insert(domain).inserted }
  }

  /// Whether `report` should be uploaded now (no identical report in the last 24 hours), and if
  /// so records the upload.
  func claimUpload(of report: CNPinningFailureReport, at date: Date) -> Bool {
    state.withLock { state in
      if let last = state.lastUpload[report.identity], date.timeIntervalSince(last) < Self.uploadInterval { return false }
      let domain = report.configuration.domain
      var recent = (state.recentUploads[domain] ?? []).filter { date.timeIntervalSince($0) < 3600 }
      guard recent.count < Self.uploadsPerDomainPerHour else {
        state.recentUploads[domain] = recent
        return false
      }
      recent.append(date)
      state.recentUploads[domain] = recent
      state.lastUpload[report.identity] = date
      if state.lastUpload.count > Self.maximumRememberedUploads {
        state.lastUpload = state.lastUpload.filter { date.timeIntervalSince($0.value) < Self.uploadInterval }
        while state.lastUpload.count > Self.maximumRememberedUploads,
          let oldest = state.lastUpload.min(by: { $0.value < $1.value })
        {
          state.lastUpload[oldest.key] = nil
        }
      }
      return true
    }
  }

  /// How many uploaded reports are remembered (for tests of the bound).
  var rememberedUploadCount: Int { state.withLock { $0.lastUpload.count } }
}

extension CNPinningManager {
  /// Receives every failure report (pin failures, enforced or report-only, and each expiry of a
  /// host's pins, once) on a private queue. Pass nil to stop.
  public func setFailureReportHandler(_ handler: (@Sendable (CNPinningFailureReport) -> Void)?) {
    reporting.setHandler(handler)
  }

  /// Evaluates like `evaluate(host:chain:at:)` and reports what needs reporting: a failure (to
  /// the handler), and the first evaluation of a host whose pins expired. Transports call this;
  /// it returns the report so that a transport can upload it.
  package func evaluateAndReport(host: String, port: Int, chain: [CNCertificate], at date: Date? = nil)
    -> (result: CNPinningResult, report: CNPinningFailureReport?)
  {
    let result = evaluate(host: host, chain: chain, at: date)
    return (result, report(result, host: host, port: port, chain: chain, at: date))
  }

  /// Reports what needs reporting about a result `evaluate` returned: a failure (to the
  /// handler), and the first evaluation of a host whose pins expired. Returns the report so that
  /// a transport can upload it. Transports call this after their verdict, outside any TLS callback.
  package func report(_ result: CNPinningResult, host: String, port: Int, chain: [CNCertificate], at date: Date? = nil)
    -> CNPinningFailureReport?
  {
    var report: CNPinningFailureReport?
    if let failure = result.failure, failure.domain != nil {
      report = CNPinningFailureReport(failure: failure, port: port, time: date ?? Date(), chain: chain)
    } else if case .notPinned = result, let (domain, configuration) = self.configuration(for: host),
      let expiration = configuration.expirationDate, (date ?? Date()) >= expiration, reporting.firstExpiry(of: domain)
    {
      report = CNPinningFailureReport(
        expiredHost: host.lowercased(), port: port, domain: domain, configuration: configuration, time: date ?? Date())
      CNPinningLog.warn(report!.reason)
    }
    if let report { reporting.deliver(report) }
    return report
  }

  /// Distinct reports one configured domain may upload per hour.
  package static var uploadsPerDomainPerHour: Int { FailureReporting.uploadsPerDomainPerHour }
  /// How many uploaded reports a manager remembers for de-duplication.
  package static var maximumRememberedUploads: Int { FailureReporting.maximumRememberedUploads }
  /// How many uploaded reports this manager remembers now.
  package var rememberedUploadCount: Int { reporting.rememberedUploadCount }

  /// Whether a transport should upload `report` to its configuration's `reportURI` now: uploads
  /// of identical reports are limited to one per 24 hours per process, and distinct reports of one
  /// configured domain to ten per hour.
  package func shouldUpload(_ report: CNPinningFailureReport, at date: Date = Date()) -> Bool {
    reporting.claimUpload(of: report, at: date)
  }
}
