import CNPinning
import CNPinningSession
import Foundation

/// `cnpin pins HOST[:PORT]`: the verified chain's Common Names, root → leaf.
enum PinsCommand {
  static let spec = ArgumentSpec(
    flags: ["--json", "--includes-subdomains", "--document", "--help", "-h"],
    options: NetworkOptions.options.union(["--format", "--future-anchors"]),
    positionals: 1...1, positionalName: "HOST[:PORT]")

  static let help = """
    Usage: cnpin pins HOST[:PORT]|https://URL [--format names|plist|json|swift|spki|pem] [--document] [--includes-subdomains]
                      [--cafile PEM] [--resolve HOST:PORT:ADDRESS] [--timeout SECONDS] [-x PROXY] [--json]

    Connects with SNI, verifies the chain (system trust store, or only the anchors in --cafile) and
    the host name, and prints the verified chain root → leaf, including the trust anchor the server
    did not send. When verification fails it prints what the server presented and why, and exits 1.

      --format names   one Common Name per line (default)
      --format plist   the <key>/<dict> entry to paste under PinnedDomains (trailing digits become
                       prefixWithNumber on the prefix, other names exact)
      --format json    the same entry as JSON
      --document       with plist or json: a whole configuration file that loads as it is
      --format swift   a CNChain literal
      --format spki    each certificate's SPKI SHA-256 (base64) and Common Name
      --future-anchors PEM
                       roots a trust store is about to carry (a CA's new roots): when the verified
                       chain runs through one of them cross-signed, the suggestion also pins the
                       shorter chain it anchors (the trust store's own roots are looked at anyway)
      --format pem     the verified chain as PEM, leaf first (what CNCertificate.certificates reads,
                       and `cnpin check --chain` rehearses against)
      --json           a JSON report of the chain instead

    Network options:
    \(NetworkOptions.help)

    Examples:
      cnpin pins example.com
      cnpin pins api.internal:8443 --cafile corporate-root.pem --format plist
      cnpin pins [::1]:8443 --cafile test-ca.pem --resolve api.test:8443:127.0.0.1
    """

  enum Format: String, CaseIterable { case names, plist, json, swift, spki, pem }

  struct CertificateReport: Encodable {
    let commonName: String?
    let commonNameProblem: String?
    let issuerCommonName: String?
    let spkiSHA256: String
    let sha256: String
    let notValidBefore: Date
    let notValidAfter: Date

    init(_ certificate: CNCertificate) {
      commonName = certificate.commonName
      commonNameProblem = certificate.commonNameProblem?.description
      issuerCommonName = certificate.issuerCommonNames.last
      spkiSHA256 = certificate.spkiSHA256Base64
      sha256 = certificate.sha256.map { String(format: "%02x", $0) }.joined()
      notValidBefore = certificate.notValidBefore
      notValidAfter = certificate.notValidAfter
    }
  }

  struct Report: Encodable {
    let host: String
    let port: Int
    let verified: Bool
    /// Root → leaf when verified.
    let verifiedChain: [CertificateReport]
    /// As the server sent them (leaf first).
    let presentedChain: [CertificateReport]
    let error: String?
  }

  static func run(_ words: [String]) async throws(CLIError) {
    let arguments = try spec.parse(words)
    let target = try HostPort(arguments.positionals[0])
    let network = try NetworkOptions(arguments)
    let formatName = arguments.value("--format") ?? "names"
    guard let format = Format(rawValue: formatName) else {
      throw .usage("--format must be one of \(Format.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(formatName)\"")
    }
    if arguments.has("--document"), format != .plist, format != .json {
      throw .usage("--document needs --format plist or --format json")
    }
    let session = try network.session(manager: nil)
    let event: CNConnectionEvent
    do {
      event = try await session.probe(host: target.host, port: target.port)
    } catch let failure as CNProbeError {
      let presented = failure.event?.presentedChain ?? []
      if arguments.has("--json") {
        Output.print(
          Output.json(
            Report(
              host: target.host, port: target.port, verified: false, verifiedChain: [],
              presentedChain: presented.map(CertificateReport.init), error: failure.error.description)))
        // The report is the JSON document; the error line still goes to standard error.
        Output.error("cnpin: \(failure.error.description)")
        throw CLIError.exit(CLIError.from(failure.error).status)
      } else if !presented.isEmpty {
        Output.print("The server presented (leaf first, as sent):")
        for (index, certificate) in presented.enumerated() {
          Output.print(
            "  \(index): \(certificate.commonName.map(Output.value) ?? "(no usable CN)")  (issued by \(certificate.issuerCommonNames.last.map(Output.value) ?? "?"))"
          )
        }
      }
      if failure.error.code == .untrustedChain, network.trust == .system {
        Output.error(
          "hint: the chain is not trusted by the system's store; for a private CA, give its root with --cafile ROOT.pem")
      }
      throw CLIError.from(failure.error)
    } catch {
      throw .network("\(error)")
    }
    let chain = Array(event.verifiedChain.reversed())
    if arguments.has("--json") {
      Output.print(
        Output.json(
          Report(
            host: target.host, port: target.port, verified: true, verifiedChain: chain.map(CertificateReport.init),
            presentedChain: event.presentedChain.map(CertificateReport.init), error: nil)))
      return
    }
    let names = chain.map { $0.commonName ?? "(no usable CN: \($0.commonNameProblem!))" }
    switch format {
    case .names:
      names.map(Output.value).forEach(Output.print)
    case .spki:
      for (certificate, name) in zip(chain, names) { Output.print("\(certificate.spkiSHA256Base64)  \(Output.value(name))") }
    case .pem:
      Output.write(Data(event.verifiedChain.map(\.pemEncoded).joined().utf8))
    case .plist, .json, .swift:
      let other = SuggestedPins.otherShape(
        rootToLeaf: chain, presented: event.presentedChain, anchors: try twinCandidates(arguments, network))
      let chains = [chain] + (other.map { [$0] } ?? [])
      let configuration = try SuggestedPins.cliConfiguration(
        rootToLeaf: chains, includesSubdomains: arguments.has("--includes-subdomains"))
      if let other {
        Output.error(
          "note: the chain runs through a cross-signed CA; the entry also pins its other shape, [\(other.map { Output.value($0.commonName ?? "?") }.joined(separator: " → "))], so that a trust store's update does not lock anyone out"
        )
      } else {
        Output.error(
          "note: one chain: a change of the CA's hierarchy needs a second one; rehearse it before the switch with cnpin check --config FILE --chain NEXT.pem"
        )
      }
      switch format {
      case .plist:
        // A property list cannot hold control characters (XML has no way to write most of them).
        if let name = names.first(where: { $0.unicodeScalars.contains { VisibleText.needsEscape($0) } }) {
          throw .failed(
            "the Common Name \(VisibleText.quoted(name)) has control characters, which a property list cannot hold: use --format json"
          )
        }
        let document = arguments.has("--document")
        Output.write(
          Data(
            (document
              ? DocumentWriter.propertyList([(target.host, configuration)])
              : DocumentWriter.propertyListEntry(host: target.host, configuration: configuration)).utf8))
      case .json where arguments.has("--document"):
        Output.write(Data(DocumentWriter.json([(target.host, configuration)]).utf8))
      case .json: Output.print("\(DocumentWriter.jsonString(target.host)): \(DocumentWriter.jsonEntry(configuration))")
      default:
        Output.print(SuggestedPins.swiftLiteral(configuration, names: chains.map { $0.map { $0.commonName ?? "?" } }))
      }
    }
    if chain.contains(where: { $0.commonName == nil }) {
      throw .failed("a certificate in the verified chain has no usable Common Name, so the chain cannot be pinned by CN")
    }
  }

  /// Where a cross-signed CA's self-signed twin may be found: the anchors the chain was verified
  /// against, and `--future-anchors`.
  private static func twinCandidates(_ arguments: Arguments, _ network: NetworkOptions) throws(CLIError) -> [CNCertificate] {
    let future = try arguments.value("--future-anchors").map { path throws(CLIError) in
      guard case .customAnchors(let roots) = try NetworkOptions.anchors(inPEMFile: path) else { return [CNCertificate]() }
      return roots
    }
    return ((try? network.trust.anchorCertificates()) ?? []) + (future ?? [])
  }
}
