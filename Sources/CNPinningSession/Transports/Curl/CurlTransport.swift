#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningCurl
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``CNPinnedSession``'s transport on Linux: each hop becomes a ``RequestPlan``, told to libcurl as
/// a `CurlRequest` through the session's multi loop (`CNPinningCurl`), with a `CurlTransfer`
/// making every decision on the way.
package final class CurlTransport: HopTransport {
  private let configuration: CNPinnedSessionConfiguration
  private let trustStore: TrustStore
  private let proxies: ProxyRules
  /// What HTTPS proxies are verified against, one store per distinct trust.
  private let proxyTrustStores: [(trust: CNTrust, store: TrustStore)]
  private let loop: CurlMultiLoop

  package init(configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError) {
    self.configuration = configuration
    trustStore = try TrustStore(configuration.trust)
    let proxies = try ProxyRules(
      configuration.proxy, noProxy: configuration.noProxy, environment: ProxyRules.processEnvironment)
    self.proxies = proxies
    proxyTrustStores = try proxies.proxyTrusts.map { trust throws(CNPinnedSessionError) in (trust, try TrustStore(trust)) }
    do {
      loop = try CurlMultiLoop(
        resolve: configuration.resolve.map { ($0.host, $0.port, $0.address) },
        maximumConnectionsPerHost: configuration.httpMaximumConnectionsPerHost, borrowBudget: configuration.borrowBudget)
    } catch {
      throw .setupFailed(reason: error.reason)
    }
  }

  /// The name of the network thread (`CNPSession-N`).
  package var threadName: String { loop.name }

  package var borrowedTransfers: Int { loop.borrowedTransfers }

  /// How many times work queued for the multi loop woke it (for tests).
  package var wakeUpSignals: Int { loop.wakeUpSignals }

  /// The network thread, as a task executor: the multi loop runs the jobs of tasks that prefer
  /// it between its turns.
  package var executor: any TaskExecutor { loop }

  package func invalidate() { loop.shutdown() }

  package nonisolated(nonsending) func exchange(_ hop: Hop) async -> HopReport {
    let plan: RequestPlan
    do throws(CNPinnedSessionError) {
      plan = try RequestPlan(
        request: hop.request, target: hop.target, fields: hop.fields, configuration: configuration,
        destination: hop.destination, connectOnly: hop.connectOnly, proxies: proxies)
    } catch {
      return HopReport(outcome: .failure(error), judgements: [], networkTime: nil)
    }
    let policy = RequestPolicy(
      target: hop.target, trust: ObjectIdentifier(trustStore), manager: hop.manager, unpinnedHosts: configuration.unpinnedHosts,
      rules: hop.rules, wantsPresentedChain: hop.wantsPresentedChain,
      webPKIScope: configuration.certificateProfile.scope(under: configuration.trust))
    let request = curlRequest(plan, policy)
    // The plan, the policy and libcurl's request move into the first attempt's transfer and job
    // (kept here as well, they were copied and destroyed once more a request); a second attempt
    // takes them from the first.
    var transfer = CurlTransfer(
      plan: consume plan, policy: consume policy, destination: hop.destination, progress: hop.progress)
    var job = CurlJob(
      request: consume request, events: transfer, delivery: transfer.delivery, streamsABody: transfer.streamsABody)
    // Sent once more, on a fresh connection, when the first attempt may be sent again (the
    // refused connection is closed and not reused). A loop rather than a nested async function,
    // whose calls cost the task executor hops (about 1,400 instructions a request).
    // The first attempt's judgements, when it was sent again.
    var earlier: [Judgement]?
    var report: TransferReport
    var networkTime: UInt64 = 0
    while true {
      if transfer.streamsABody {
        // Held strongly: every job has an end, which finishes the channel and closes the
        // request body, and both then drop these closures, so the job → body → job cycle ends
        // with the transfer. A weak reference would give the loop and each job a side table,
        // through which every retain and release of them then goes (the runtime's slow path).
        transfer.connect(wake: { [loop, job] in loop.resume(job) }, cancel: { [loop, job] in loop.cancel(job) })
      }
      await loop.perform(job)
      networkTime += job.networkTime
      report = transfer.takeReport()
      if case .none = earlier, report.mayBeSentAgain {
        earlier = report.judgements
        transfer = CurlTransfer(
          plan: transfer.plan, policy: transfer.policy, destination: hop.destination, progress: hop.progress)
        job = CurlJob(
          request: job.request, events: transfer, delivery: transfer.delivery, streamsABody: transfer.streamsABody)
        continue
      }
      break
    }
    let judgements = earlier.map { $0 + report.judgements } ?? report.judgements
    return HopReport(outcome: report.result, judgements: judgements, networkTime: networkTime)
  }

  /// What libcurl is told of `plan` under `policy`.
  private func curlRequest(_ plan: RequestPlan, _ policy: RequestPolicy) -> CurlRequest {
    let proxy = plan.proxy.map { route in
      CurlRequest.Proxy(
        url: route.url, host: route.host, port: route.port, isHTTPS: route.isHTTPS,
        credentials: route.credentials.map { ($0.user, $0.password) },
        trustStore: route.isHTTPS ? proxyTrustStores.first { $0.trust == route.trust }?.store : nil)
    }
    let method: CurlRequest.Method
    switch plan.method {
    case .get: method = .get
    case .head: method = .head
    case .withBody(let name, .bytes(let bytes)): method = .withBody(name: name, body: .bytes(bytes))
    case .withBody(let name, .streamed(let body)): method = .withBody(name: name, body: .streamed(length: body.length))
    }
    let (host, port, trust) = (policy.host, policy.port, policy.trust)
    let tls = CurlRequest.TLS(
      host: policy.host, hostIsIPAddress: policy.hostName.isIPAddress, port: policy.port, trustStore: trustStore,
      minimumVersion: policy.minimumTLSVersion, lowersSecurityLevel: policy.lowersSecurityLevel,
      recordsVersionMessages: policy.rules.isEnforced, wantsPresentedChain: policy.wantsPresentedChain,
      keepVerifiedChain: { chain, presented in
        VerifiedChain(host: host, port: port, trust: trust, certificates: chain, presented: presented)
      })
    return CurlRequest(
      url: plan.target.connectionURL.absoluteString, isHTTPS: plan.isHTTPS, method: method, headerLines: plan.headerLines,
      proxyHeaderLines: plan.proxyHeaderLines, timeout: plan.timeout, resourceTimeout: plan.resourceTimeout,
      offersHTTP2: plan.offersHTTP2, connectOnly: plan.connectOnly, proxy: proxy, tls: tls, clock: plan.clock)
  }
}

extension TrustStore {
  /// The store for a session's trust.
  convenience init(_ trust: CNTrust) throws(CNPinnedSessionError) {
    do {
      switch trust {
      case .system: try self.init(system: true, customAnchors: [])
      case .customAnchors(let anchors):
        guard !anchors.isEmpty else {
          throw CNPinnedSessionError.invalidArgument("custom trust needs at least one anchor certificate")
        }
        try self.init(system: false, customAnchors: anchors)
      case .systemAndCustomAnchors(let anchors):
        guard !anchors.isEmpty else {
          throw CNPinnedSessionError.invalidArgument("custom trust needs at least one anchor certificate")
        }
        try self.init(system: true, customAnchors: anchors)
      }
    } catch let error as CNPinnedSessionError {
      throw error
    } catch {
      throw .invalidArgument((error as? CurlSetupError)?.reason ?? "\(error)")
    }
  }
}

extension RequestPolicy {
  /// Whether a connection under the policy runs at OpenSSL's security level 0 (versions below
  /// TLS 1.2, or weak certificates allowed), rather than the default.
  var lowersSecurityLevel: Bool {
    minimumTLSVersion < .tls12 || (rules.isEnforced && rules.allowsWeakCertificates)
  }
}
#endif
