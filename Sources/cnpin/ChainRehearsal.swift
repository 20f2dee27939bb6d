import CNPinning
import CNPinningSession
import Foundation

/// `cnpin check --chain FILE`: a chain from a file verified and judged as a connection's would
/// be, offline, to rehearse a CA's next hierarchy before it issues from it.
enum ChainRehearsal {
  /// The results for the chain in `file`: one per host it is judged for.
  static func check(
    _ file: String, hosts: [String], document: CNPinningDocument, manager: CNPinningManager,
    configuration: CNPinnedSessionConfiguration, horizon: ExpiryHorizon?, catalogue: CACatalogue, at now: Date
  ) throws(CLIError) -> [CheckCommand.Result] {
    let chain = try ChainFile.read(file, option: .chain)
    let targets = try hosts.isEmpty ? document.entries.map(\.host).filter { leafNames(chain[0], $0) } : hosts.map(host)
    guard !targets.isEmpty else {
      return [
        .init(
          target: file, status: "FAIL",
          detail:
            "the leaf (\(Output.value(chain[0].displayName))) is for none of the configuration's hosts; name the host with --host"
        )
      ]
    }
    #if CNPINNING_LINUX_BACKEND
    let evaluator: CNTrustEvaluator
    do {
      evaluator = try CNTrustEvaluator(configuration: configuration)
    } catch {
      throw .usage("\(error)")
    }
    return targets.map { host in
      let target = "\(HostName.authority(host)) (\(file))"
      let pins = manager.configuration(for: host)?.configuration
      guard pins != nil else { return CheckCommand.notPinned(host, target: target, manager: manager) }
      let verified: [CNCertificate]
      do {
        verified = try evaluator.verify(chain, for: host, at: now)
      } catch {
        return .init(target: target, status: "FAIL", detail: "\(error)")
      }
      var result = CheckCommand.judged(manager.evaluate(host: host, chain: verified), chain: verified, target: target)
      result.expiring = horizon.map {
        $0.certificates(verified) + $0.pins(of: host, pins) + $0.calendar(of: host, pins, catalogue: catalogue)
      }
      return result
    }
    #else
    throw .usage("\(Option.chain) needs the Linux build of cnpin: it verifies with OpenSSL, as the Linux session does")
    #endif
  }

  /// `HOST` or `HOST:PORT` as given to `--host`: the host.
  private static func host(_ text: String) throws(CLIError) -> String { try HostPort(text).host }

  /// Whether the leaf's subjectAltName names `host` (a wildcard covering one label included).
  private static func leafNames(_ leaf: CNCertificate, _ host: String) -> Bool {
    guard case .success(let name) = HostName.parse(host),
      case .present(let names, _) = leaf.subjectAlternativeNames
    else { return false }
    if name.isIPAddress { return names.ipAddresses.contains(name.normalized) }
    return names.dnsNames.contains { san in
      let san = san.lowercased()
      if san == name.normalized { return true }
      guard san.hasPrefix("*."), let dot = name.normalized.firstIndex(of: ".") else { return false }
      return name.normalized[name.normalized.index(after: dot)...] == san.dropFirst(2)
    }
  }
}

/// A chain in a PEM file, as `--chain` options read it.
enum ChainFile {
  /// The certificates of a PEM file, the leaf first; `option` names the option in errors.
  static func read(_ file: String, option: Option) throws(CLIError) -> [CNCertificate] {
    let text = try InputFile.text(file, "\(option) \(file)")
    let chain: [CNCertificate]
    do {
      chain = try CNCertificate.certificates(pemEncoded: text)
    } catch {
      throw .configuration("\(option) \(file): \(error)")
    }
    guard !chain.isEmpty else { throw .configuration("\(option) \(file) holds no certificate") }
    return chain
  }
}
