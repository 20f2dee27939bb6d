import CNPinning
import CNPinningSession
import Foundation

/// The CA certificates `cnpin convert` resolves CN links against: those of the `--chain` files
/// (intermediates, or whole chains as `cnpin pins --format pem` writes them) and the anchors
/// (`--cafile`, else the system store unless `--trust none`), each with where it was read.
struct CertificatePool {
  struct Entry {
    let certificate: CNCertificate
    /// Where it was read: `--chain next.pem`, `--cafile roots.pem`, `system store`.
    let origin: String

    var name: String { certificate.commonName.map { VisibleText.escaped($0) } ?? "a certificate without a Common Name" }
  }

  let entries: [Entry]

  init(entries: [Entry]) { self.entries = entries }

  /// The pool `--chain`, `--cafile` and `--trust` describe.
  init(_ arguments: Arguments) throws(CLIError) {
    var entries: [Entry] = []
    for path in arguments.values(.chain) {
      entries += try ChainFile.read(path, option: .chain).map { Entry(certificate: $0, origin: "\(Option.chain) \(path)") }
    }
    if let trust = try LintCommand.trust(arguments) {
      let origin = arguments.value(.cafile).map { "\(Option.cafile) \($0)" } ?? "system store"
      entries += try LintCommand.anchors(of: trust).map { Entry(certificate: $0, origin: origin) }
    }
    self.entries = entries
  }

  /// The CA certificates valid at `now` whose names satisfy `link`, one per key.
  func matching(_ link: CNChainLink, at now: Date) -> [Entry] {
    var found: [Entry] = []
    for entry in entries
    where Self.isCA(entry.certificate) && entry.certificate.notValidBefore <= now && now <= entry.certificate.notValidAfter
      && link.matches(entry.certificate)
      && !found.contains(where: { $0.certificate.spkiSHA256Base64 == entry.certificate.spkiSHA256Base64 })
    {
      found.append(entry)
    }
    return found
  }

  /// The latest end of validity among the certificates with this key, when one is in the pool.
  func validUntil(of spkiSHA256: String) -> Date? {
    entries.filter { $0.certificate.spkiSHA256Base64 == spkiSHA256 }.map(\.certificate.notValidAfter).max()
  }

  /// A CA certificate: basicConstraints says so, or a self-issued root without the extension.
  private static func isCA(_ certificate: CNCertificate) -> Bool {
    switch certificate.basicConstraints {
    case .present(let constraints, _): return constraints.isCA
    case .absent: return certificate.isSelfIssued
    case .malformed: return false
    }
  }
}
