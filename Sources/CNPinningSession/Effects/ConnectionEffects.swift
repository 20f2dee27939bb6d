import CNPinning
import Foundation

/// What follows a verdict, outside every C callback and every delegate, in the requesting task:
/// an observer event per judgement, and each pin failure (or expiry) reported to the session's
/// reporter and, with a `reportURI`, uploaded within the reporter's limits. The same on every platform.
package struct ConnectionEffects: Sendable {
  /// Where failure reports go and the upload limits are kept (`configuration.failureReporter`,
  /// or the session's own).
  package let reporter: CNPinningReporter
  /// Uploads failure reports; nil for the session that uploads them (no recursion).
  package let uploader: ReportUploader?

  /// Effects for `reporter`; with an `uploader` and a reporter that keeps uploads on disk, the
  /// kept uploads that are due are sent now (a new session is how an app's launch shows here),
  /// each only to a report URI `manager`'s pins name.
  package init(reporter: CNPinningReporter, uploader: ReportUploader?, manager: CNPinningManager? = nil) {
    self.reporter = reporter
    self.uploader = uploader
    if let uploader, let queue = reporter.uploadQueue {
      uploader.sendKept(queue, to: Set(manager?.pinnedDomains.values.compactMap(\.reportURI) ?? []))
    }
  }

  /// The effects of a session made with `configuration`: its `failureReporter`, or one of the
  /// session's own; uploads through a transport `makeTransport` makes, unless `uploads` is false
  /// (the session that uploads reports).
  package init(
    configuration: CNPinnedSessionConfiguration, manager: CNPinningManager?, uploads: Bool = true,
    makeTransport: @escaping TransportMaker
  ) {
    self.init(
      reporter: configuration.failureReporter ?? CNPinningReporter(),
      uploader: uploads ? ReportUploader(configuration: configuration, makeTransport: makeTransport) : nil, manager: manager)
  }

  /// `emit` for judgements a session-level challenge for `host` (as URLSession spells it) made:
  /// there is no request after it to emit them.
  package func emit(_ judgements: [Judgement], challengeHost host: String, port: Int, manager: CNPinningManager?) {
    let hostName = try? HostName.parseChallengeHost(host).get()
    emit(judgements, host: hostName?.normalized ?? host, port: port, hostName: hostName, manager: manager, observer: nil)
  }

  /// Emits the judgements of connections to `host` and `port`. `hostName`: the host parsed, to
  /// look up its `reportURI` (nil for a host refused for its name: reported, with nowhere to
  /// upload). `label`: the ``CNHTTPRequest``'s, carried by each event.
  package func emit(
    _ judgements: [Judgement], host: String, port: Int, hostName: HostName?, manager: CNPinningManager?,
    observer: (@Sendable (CNConnectionEvent) -> Void)?, label: String? = nil
  ) {
    // By index: a judgement is large, and most requests need only its pin result read.
    for index in judgements.indices {
      if let observer { observer(event(for: judgements[index], host: host, port: port, label: label)) }
      guard let uploader, let manager, judgements[index].pinningMayBeReported, let pinning = judgements[index].pinning,
        let report = reporter.report(pinning, host: host, port: port, chain: judgements[index].verifiedChain, pins: manager)
      else { continue }
      if let hostName, let reportURI = manager.configuration(for: hostName)?.configuration.reportURI,
        reporter.claimUpload(of: report)
      {
        uploader.upload(reporter.upload(of: report), to: reportURI, keptIn: reporter.uploadQueue)
      }
    }
  }

  private func event(for judgement: Judgement, host: String, port: Int, label: String?) -> CNConnectionEvent {
    CNConnectionEvent(
      host: host, port: port, kind: judgement.use, verifiedChain: judgement.verifiedChain,
      presentedChain: judgement.presentedChain, pinning: judgement.pinning, error: judgement.rejection,
      tlsVersion: CNTLSVersion(rawValue: judgement.protocolVersion),
      httpVersion: judgement.applicationProtocol.map { $0 == "h2" ? "HTTP/2" : $0.uppercased() }, requestLabel: label)
  }
}
