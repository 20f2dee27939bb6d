import CNPinning
import CNPinningSession
import Foundation

/// `cnpin pins HOST[:PORT]`, or `--chain FILE --host HOST` offline: the verified chain, root →
/// leaf, and the pins to paste (or to add to a file) for every shape a store may verify.
enum PinsCommand {
  static let spec = ArgumentSpec(
    command: "pins",
    forms: [["HOST[:PORT]|https://URL"], [.option(.chain), .option(.host)]],
    options: [
      .pinsFormat, .document, .includesSubdomains, .futureAnchors, .addTo,
      .chain.explained("verify this chain file (the leaf first) instead of connecting (needs --host)"),
      .host.explained("the host a --chain is for"),
      .at.explained("with --chain: verify and judge as of DATE (YYYY-MM-DD or a time, UTC)"),
      .catalogue, .json.explained("a JSON report of the chain instead"),
    ] + NetworkOptions.all,
    positionals: 0...1, positionalName: "HOST[:PORT]")

  static let help = Help.text(
    [spec],
    about: """
      Connects with SNI, verifies the chain (system trust store, or only the anchors in --cafile) and
      the host name, and prints the verified chain root → leaf, including the trust anchor the server
      did not send, and the names the leaf is valid for. When verification fails it prints what the
      server presented and why, and exits 1.

      With --chain, nothing is connected to: the file's certificates (the leaf first, then what a
      server would send) are verified the same way, for --host. This turns a CA's next hierarchy,
      published months ahead, into pins before it issues from it.

      The CA catalogue's step after the chain's: when the chain's family (Let's Encrypt's Generation
      X ECDSA, GlobalSign's Atlas R3 DV, …) stops or stopped issuing, or has an announced successor,
      the suggestion also carries the successor's chain in all its store shapes, saying why on
      standard error (and in a comment in plist and swift); the CA's other key type is named with
      the chain to add.
      """,
    footer: """
      Examples:
        cnpin pins example.com
        cnpin pins api.internal:8443 --cafile corporate-root.pem --format plist
        cnpin pins --chain next-ca.pem --host api.example.com --future-anchors next-root.pem --add-to pins.json
      """)

  enum Format: String, CaseIterable { case names, plist, json, swift, spki, pem }

  struct CertificateReport: Encodable {
    let commonName: String?
    let commonNameProblem: String?
    let subjectAltNames: [String]
    let issuerCommonName: String?
    let spkiSHA256: String
    let sha256: String
    let notValidBefore: Date
    let notValidAfter: Date

    init(_ certificate: CNCertificate) {
      commonName = certificate.commonName
      commonNameProblem = certificate.commonNameProblem?.description
      subjectAltNames = certificate.subjectAltNameEntries
      issuerCommonName = certificate.issuerCommonNames.last
      spkiSHA256 = certificate.spkiSHA256Base64
      sha256 = certificate.sha256.map { String(format: "%02x", $0) }.joined()
      notValidBefore = certificate.notValidBefore
      notValidAfter = certificate.notValidAfter
    }
  }

  struct Report: Encodable {
    let host: String
    let port: Int?
    let verified: Bool
    /// Root → leaf when verified.
    let verifiedChain: [CertificateReport]
    /// As the server sent them (leaf first).
    let presentedChain: [CertificateReport]
    let error: String?
  }

  /// The chain to pin: what was sent (as sent: the leaf, then what came with it) and the chain
  /// verified under today's trust, with the host it is for.
  private struct Verified {
    let host: String
    let port: Int?
    let sent: [CNCertificate]
    let chain: CertificateChain
  }

  static func run(_ words: [String]) async throws(CLIError) {
    let arguments = try spec.parse(words)
    let network = try NetworkOptions(arguments)
    let format = try arguments.choice(.pinsFormat, default: Format.names)
    if arguments.has(.document), format != .plist, format != .json {
      throw .usage("\(Option.document) needs --format plist or --format json")
    }
    if arguments.value(.addTo) != nil, arguments.has(.document) || arguments.has(.json) {
      throw .usage("\(Option.addTo) writes the file; it takes neither --document nor --json")
    }
    let roots = try ChainShapes.roots(network.trust, future: arguments.value(.futureAnchors))
    let now = try Clock.now(arguments)
    let verified: Verified
    if let file = arguments.value(.chain) {
      verified = try offline(file, arguments, network: network, roots: roots, at: now)
    } else {
      guard arguments.value(.at) == nil else {
        throw .usage("\(Option.at) judges a --chain offline; a live chain is verified now")
      }
      guard arguments.value(.host) == nil else { throw .usage("\(Option.host) names the host of a --chain") }
      guard let text = arguments.positionals.first else { throw .usage("missing HOST[:PORT] (or --chain PEM --host HOST)") }
      verified = try await live(try HostPort(text), arguments, network: network)
    }
    let chain = Array(verified.chain.rootFirst)
    if arguments.has(.json) {
      Output.print(
        Output.json(
          Report(
            host: verified.host, port: verified.port, verified: true, verifiedChain: chain.map(CertificateReport.init),
            presentedChain: verified.sent.map(CertificateReport.init), error: nil)))
      return
    }
    let names = chain.map(\.displayName)
    if let leaf = verified.chain.leaf, format != .pem, format != .spki || leaf.commonName == nil {
      Output.error("note: the leaf is valid for: \(leafNames(leaf))")
    }
    if arguments.value(.addTo) != nil {
      try suggest(verified, format: format, arguments, roots: roots, at: now)
      return
    }
    switch format {
    case .names:
      names.map(Output.value).forEach(Output.print)
    case .spki:
      for (certificate, name) in zip(chain, names) { Output.print("\(certificate.spkiSHA256Base64)  \(Output.value(name))") }
    case .pem:
      Output.write(Data(verified.chain.leafFirst.map(\.pemEncoded).joined().utf8))
    case .plist, .json, .swift:
      try suggest(verified, format: format, arguments, roots: roots, at: now)
    }
    if format == .names || format == .spki || format == .pem {
      _ = try Succession(Array(verified.chain.rootFirst), host: verified.host, arguments, at: now)
    }
  }

  /// The live chain of `target`, or why it does not verify (exit 1).
  private static func live(_ target: HostPort, _ arguments: Arguments, network: NetworkOptions) async throws(CLIError)
    -> Verified
  {
    let session = try network.session(manager: nil)
    do {
      let event = try await session.probe(host: target.host, port: target.port)
      return Verified(
        host: target.host, port: target.port, sent: event.presentedChain, chain: CertificateChain(leafFirst: event.verifiedChain))
    } catch let failure as CNPinnedSessionError {
      let presented = failure.connection?.presentedChain ?? []
      if arguments.has(.json) {
        Output.print(
          Output.json(
            Report(
              host: target.host, port: target.port, verified: false, verifiedChain: [],
              presentedChain: presented.map(CertificateReport.init), error: failure.description)))
        // The report is the JSON document; the error line still goes to standard error.
        Output.error("cnpin: \(failure.description)")
        throw CLIError.exit(CLIError.from(failure).status)
      } else if !presented.isEmpty {
        Output.print("The server presented (leaf first, as sent):")
        for (index, certificate) in presented.enumerated() {
          Output.print(
            "  \(index): \(Output.value(certificate.displayName))  (issued by \(certificate.issuerCommonNames.last.map(Output.value) ?? "?"))"
          )
        }
      }
      if failure.code == .untrustedChain, network.trust == .system {
        Output.error(
          "hint: the chain is not trusted by the system's store; for a private CA, give its root with --cafile ROOT.pem")
      }
      throw CLIError.from(failure)
    } catch {
      throw .network("\(error)")
    }
  }

  /// The chain of a PEM file verified for `--host`: under today's trust, else under
  /// `--future-anchors` only (a CA whose root no store holds yet).
  private static func offline(
    _ file: String, _ arguments: Arguments, network: NetworkOptions, roots: [CNCertificate], at now: Date
  ) throws(CLIError) -> Verified {
    guard arguments.positionals.isEmpty else { throw .usage("give HOST[:PORT] or --chain PEM, not both") }
    guard let hostText = arguments.value(.host) else {
      throw .usage("\(Option.chain) needs --host HOST: the host the chain is for")
    }
    let host = try HostPort(hostText).host
    let sent = try ChainFile.read(file, option: .chain)
    let today = try ChainShapes.verified(sent, host: host, roots: try ChainShapes.roots(network.trust, future: nil), at: now)
    if let chain = today.first { return Verified(host: host, port: nil, sent: sent, chain: CertificateChain(rootFirst: chain)) }
    guard let chain = try ChainShapes.verified(sent, host: host, roots: roots, at: now).first else {
      #if CNPINNING_LINUX_BACKEND
      // Today's verification, for its reason.
      do {
        _ = try CNTrustEvaluator(configuration: network.configuration).verify(sent, for: host, at: now)
      } catch {
        let hint =
          error.code == .untrustedChain && arguments.value(.futureAnchors) == nil
          ? "; if its root is not in trust stores yet (a CA's new hierarchy), give the root with --future-anchors ROOT.pem"
          : ""
        throw .failed("\(Option.chain) \(file) does not verify for \(host): \(error)\(hint)")
      }
      #endif
      throw .failed("\(Option.chain) \(file) does not verify for \(host) under any root given")
    }
    Output.error("note: --chain \(file) verifies only under --future-anchors, not under today's trust")
    return Verified(host: host, port: nil, sent: sent, chain: CertificateChain(rootFirst: chain))
  }

  /// The suggestion for every shape the sent chain takes under the roots, printed or added.
  private static func suggest(
    _ verified: Verified, format: Format, _ arguments: Arguments, roots: [CNCertificate], at now: Date
  ) throws(CLIError) {
    let host = verified.host
    var shapes = try ChainShapes.verified(verified.sent, host: host, roots: roots, at: now)
    let today = Array(verified.chain.rootFirst)
    if !shapes.contains(today) { shapes.insert(today, at: 0) }
    var chains: [CNChain]
    do {
      chains = try SuggestedPins.chains(for: shapes, host: host)
    } catch let unpinnable as SuggestedPins.Unpinnable {
      throw .failed("\(unpinnable): the chain cannot be pinned by CN; pin the CA's key (--format spki) instead")
    } catch {
      throw .failed("\(error)")
    }
    for chain in chains where chain.shapeLengths.count > 1 {
      let from = chain.shapes.map { Output.value($0.links[0].value) }.joined(separator: ", ")
      Output.error(
        "note: stores verify this chain in \(chain.shapeLengths.count) shapes (\(chain.shapeLengths.map(String.init).joined(separator: ", ")) certificates, from \(from)): one chain covers them, its other roots marked mayBeAnchor"
      )
    }
    // The CA's next step, when the catalogue knows one: carried, and said why.
    let succession = try Succession(today, host: host, arguments, at: now)
    // With --add-to, said only when the file then pins the host with this one chain alone.
    let oneShape = chains.allSatisfy({ $0.shapeLengths.count == 1 }) && chains.count == 1 && succession.chains.isEmpty
    let oneShapeNote =
      "note: one shape: a change of the CA's hierarchy needs a second chain; rehearse it before the switch with cnpin pins --chain NEXT.pem --host \(host) --add-to FILE"
    if oneShape && arguments.value(.addTo) == nil { Output.error(oneShapeNote) }
    if arguments.has(.includesSubdomains) {
      Output.error(
        "note: the leaf link names \(host) only; for its subdomains' own certificates write subjectAltName \".\(host)\" in another chain"
      )
    }
    chains += succession.chains.filter { !chains.contains($0) }
    let includesSubdomains = arguments.has(.includesSubdomains)
    if let file = arguments.value(.addTo) {
      let edit = try ConfigurationEdit.add(chains, host: host, includesSubdomains: includesSubdomains, to: file)
      Output.error(edit.message)
      if oneShape && edit.hostChains == 1 { Output.error(oneShapeNote) }
      return
    }
    let configuration: CNConfiguration
    do {
      configuration = try CNConfiguration(includesSubdomains: includesSubdomains, chains)
    } catch {
      throw .failed("\(error)")
    }
    let document = arguments.has(.document)
    switch format {
    case .plist:
      // A property list cannot hold control characters (XML has no way to write most of them).
      let values = chains.flatMap(\.links).map(\.value)
      if let name = values.first(where: { $0.unicodeScalars.contains { VisibleText.needsEscape($0) } }) {
        throw .failed(
          "the Common Name \(VisibleText.quoted(name)) has control characters, which a property list cannot hold: use --format json"
        )
      }
      // XML comments (never "--" inside), after the XML declaration when there is one.
      let comments = succession.comments.map {
        "<!-- \(VisibleText.escaped($0).replacingOccurrences(of: "--", with: "- -")) -->\n"
      }.joined()
      var text =
        document
        ? DocumentWriter.propertyList([(host, configuration)])
        : DocumentWriter.propertyListEntry(host: host, configuration: configuration)
      text.insert(contentsOf: comments, at: text.range(of: "<plist")?.lowerBound ?? text.startIndex)
      Output.write(Data(text.utf8))
    case .json where document:
      Output.write(Data(DocumentWriter.json([(host, configuration)]).utf8))
    case .json:
      Output.print("\(DocumentWriter.jsonString(host)): \(DocumentWriter.jsonEntry(configuration))")
    default:
      for comment in succession.comments { Output.print("// \(Output.value(comment))") }
      Output.print(SuggestedPins.swiftLiteral(chains, shapes: shapes))
    }
  }

  /// The leaf's subjectAltName entries, the first eight of them and how many more.
  private static func leafNames(_ leaf: CNCertificate) -> String {
    let names = leaf.subjectAltNameEntries
    guard !names.isEmpty else { return "(no subjectAltName)" }
    return names.prefix(8).map(Output.value).joined(separator: ", ") + (names.count > 8 ? " and \(names.count - 8) more" : "")
  }
}
