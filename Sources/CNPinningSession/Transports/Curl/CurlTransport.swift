#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSessionCore
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CNPinnedSession`'s transport on Linux: each hop becomes a `RequestPlan` and a `CurlTransfer`
/// through the session's multi handle (`CurlMultiLoop`: on its network thread, or on the
/// requesting thread when the session is idle), with the session's trust store and proxies.
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
    loop = try CurlMultiLoop(
      resolve: configuration.resolve, maximumConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
      borrowBudget: configuration.borrowBudget)
  }

  /// The name of the network thread (`CNPSession-N`).
  package var threadName: String { loop.name }

  package var borrowedTransfers: Int { loop.borrowedTransfers }

  package func invalidate() { loop.shutdown() }

  package func exchange(_ hop: Hop) async -> HopReport {
    let plan: RequestPlan
    do throws(CNPinnedSessionError) {
      plan = try RequestPlan(
        request: hop.request, target: hop.target, configuration: configuration, withheld: hop.withheld,
        cookies: Cookies.header(for: hop.request, from: hop.cookies), upload: hop.upload, destination: hop.destination,
        connectOnly: hop.connectOnly, proxies: proxies)
    } catch {
      return HopReport(outcome: .failure(error), judgements: [], networkTime: nil)
    }
    let policy = RequestPolicy(
      target: hop.target, trust: ObjectIdentifier(trustStore), manager: hop.manager, unpinnedHosts: configuration.unpinnedHosts,
      rules: hop.rules, wantsPresentedChain: hop.wantsPresentedChain,
      webPKIScope: configuration.certificateProfile.scope(under: configuration.trust))
    let proxyTrustStore = plan.proxy.flatMap { route in
      route.isHTTPS ? proxyTrustStores.first { $0.trust == route.trust }?.store : nil
    }
    func attempt() async -> TransferReport {
      await loop.perform(
        CurlTransfer(
          plan: plan, policy: policy, trustStore: trustStore, proxyTrustStore: proxyTrustStore,
          destination: hop.destination, progress: hop.progress))
    }
    var report = await attempt()
    if report.mayBeSentAgain {
      // Once, on a fresh connection: the refused connection is closed and not reused.
      let first = report
      report = await attempt()
      report = TransferReport(
        result: report.result, judgements: first.judgements + report.judgements,
        networkTime: first.networkTime + report.networkTime, mayBeSentAgain: false)
    }
    // The response object is made here, in the requesting task, not on the network thread.
    let outcome = report.result.flatMap { response in
      Result { () throws(CNPinnedSessionError) in try response.outcome(for: plan) }
    }
    return HopReport(outcome: outcome, judgements: report.judgements, networkTime: report.networkTime)
  }
}
#endif
