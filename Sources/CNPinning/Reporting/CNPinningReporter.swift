import Foundation

/// What follows a verdict, kept out of the pins: hands every failure report to the app's handler,
/// reports each expiry of a host's pins once, warns once about an unpinned host that is a typo
/// away from a pinned one, and limits how often reports are uploaded.
///
/// A `CNPinnedSession` (and URLSession through `.cnPinned`) reports to the reporter it was made
/// with, a new one when none is given. Give sessions the same reporter to share one handler and
/// one set of limits; the manager itself keeps no such state, so `evaluate` changes nothing.
///
/// <!-- snippet: Snippets/SharedReporter.swift -->
/// ```swift
/// let reporter = CNPinningReporter { report in print("pin failure: \(report.host): \(report.reason)") }
/// var configuration = CNPinnedSessionConfiguration()
/// configuration.failureReporter = reporter
/// let session = try CNPinnedSession(manager: manager, configuration: configuration)
/// ```
public final class CNPinningReporter: Sendable {
  /// Identical reports are uploaded at most once in this many seconds per reporter.
  package static let uploadInterval: TimeInterval = 24 * 3600
  /// Distinct reports for one configured domain are uploaded at most this often per hour: an
  /// interceptor presenting a fresh chain on every connection would otherwise cause one upload
  /// per connection.
  package static let uploadsPerDomainPerHour = 10
  /// How many uploaded reports are remembered for de-duplication; the oldest are forgotten first.
  package static let maximumRememberedUploads = 1000
  /// How many unpinned hosts are checked for a near miss; later ones are not, so that unpinned
  /// requests do not pay for it.
  static let maximumNearMissChecks = 256

  private struct State {
    var expiredDomains: Set<String> = []
    var nearMissesChecked: Set<String> = []
    var lastUpload: [String: Date] = [:]
    /// Upload times in the last hour, by configured domain.
    var recentUploads: [String: [Date]] = [:]
  }

  private let handler: (@Sendable (CNPinningFailureReport) -> Void)?
  private let state = Locked(State())
  private let queue = DispatchQueue(label: "CNPinning.failure-reports")
  /// How much of a report an upload carries.
  public let uploadContent: CNPinningReportUpload.Content
  /// The app version uploads carry: the one given, else the main bundle's, read when first
  /// needed (reading the bundle costs a process that never uploads its start-up time).
  public var appVersion: String? { givenAppVersion ?? Self.mainBundleVersion }
  private let givenAppVersion: String?
  private static let mainBundleVersion =
    Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String
  /// Where uploads are kept until delivered; nil when they are not kept.
  package let uploadQueue: UploadQueue?

  /// Creates a reporter. `handler` receives every failure report (pin failures, enforced or
  /// report-only, and each expiry of a host's pins, once) on a private queue, so that a slow
  /// handler never delays the connection a report is about; without one, reports are only
  /// uploaded (to a `reportURI`) and expiries logged. Uploads are minimal
  /// (``CNPinningReportUpload/Content/minimal``) and carry the main bundle's version.
  public convenience init(handler: (@Sendable (CNPinningFailureReport) -> Void)? = nil) {
    self.init(handler: handler, uploads: .minimal, appVersion: nil)
  }

  /// Creates a reporter whose uploads carry `uploads` (`.full` sends the verified chain's names
  /// and keys: an opt-in, see docs/REPORTS.md) and ``appVersion`` (nil: the main bundle's
  /// `CFBundleShortVersionString`, when it has one). With `keepingUploadsIn`, a folder of the
  /// app's (Application Support, not Caches), every upload is kept there until its collector
  /// takes it, sent again with backoff in this launch and the next ones (at most 100 uploads and
  /// 1 MiB, the oldest dropped; each for at most ten tries and seven days).
  public init(
    handler: (@Sendable (CNPinningFailureReport) -> Void)? = nil, uploads: CNPinningReportUpload.Content,
    appVersion: String?, keepingUploadsIn directory: URL? = nil
  ) {
    self.handler = handler
    uploadContent = uploads
    givenAppVersion = appVersion
    uploadQueue = directory.map(UploadQueue.init(directory:))
  }

  /// The body to POST for `report`.
  package func upload(of report: CNPinningFailureReport) -> Data {
    CNPinningReportUpload(report, content: uploadContent, appVersion: appVersion).jsonData()
  }

  /// Reports what needs reporting about a result `manager.evaluate` returned: a failure, and
  /// the first evaluation of a host whose pins expired (also logged). Returns the report so
  /// that a transport can upload it. Transports call this after their verdict, outside every
  /// TLS callback.
  package func report(
    _ result: CNPinningResult, host: String, port: Int, chain: [CNCertificate], pins manager: CNPinningManager,
    at date: Date? = nil
  ) -> CNPinningFailureReport? {
    guard result.mayBeReported else { return nil }
    var report: CNPinningFailureReport?
    if let failure = result.failure, failure.domain != nil {
      report = CNPinningFailureReport(failure: failure, port: port, time: date ?? Date(), chain: chain)
    } else if case .notPinned = result, let (domain, configuration) = manager.configuration(for: host),
      let expiration = configuration.expirationDate, (date ?? Date()) >= expiration, firstExpiry(of: domain)
    {
      report = CNPinningFailureReport(
        expiredHost: host.lowercased(), port: port, domain: domain, configuration: configuration, time: date ?? Date())
      CNPinningLog.warn(report!.reason)
    }
    if let report, let handler { queue.async { handler(report) } }
    return report
  }

  /// Whether the expiry of `domain` is being reported for the first time.
  private func firstExpiry(of domain: String) -> Bool {
    state.withLock { $0.expiredDomains.insert(domain).inserted }
  }

  /// The warning to give, once per host, for a request to an unpinned `host` that is a near miss
  /// of a domain `manager` pins; nil when there is none or the host was checked already.
  package func nearMissWarning(for host: String, pins manager: CNPinningManager) -> String? {
    let first = state.withLock { state in
      guard state.nearMissesChecked.count < Self.maximumNearMissChecks else { return false }
      return state.nearMissesChecked.insert(host.lowercased()).inserted
    }
    guard first, let domain = manager.nearestPinnedDomain(to: host) else { return nil }
    return "\(host) is not pinned, but the configuration pins \(domain): a typo in the configuration or the URL?"
  }

  /// Whether `report` should be uploaded now, and if so records the upload: identical reports
  /// at most once per 24 hours, distinct reports of one configured domain ten times an hour.
  package func claimUpload(of report: CNPinningFailureReport, at date: Date = Date()) -> Bool {
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

  /// How many uploaded reports are remembered now (for tests of the bound).
  package var rememberedUploadCount: Int { state.withLock { $0.lastUpload.count } }
}
