import Foundation

/// The big CAs as successions, not only shapes: each operator's families (a key type's
/// hierarchy: its certificates, issuing CAs and the shapes a trust store may verify it in) with
/// a status and dates, the families that succeed them, and the dated events of root stores and
/// the CA/Browser Forum that break or endanger pins. One data file, `catalogue/ca-catalogue.json`,
/// with a version and a date, compiled in (``CACatalogue/compiledIn``, read on first use, so that
/// commands that do not use it never load it) and replaceable without a release (`cnpin …
/// --catalogue FILE`). Its facts come from the sources each entry names.
package struct CACatalogue: Sendable {
  /// The format this reader reads.
  package static let format = "cnpinning-ca-catalogue-1"

  /// The catalogue's version, and the day its facts were last checked (YYYY-MM-DD).
  package let version: String
  package let date: String
  package let operators: [Operator]
  package let events: [Event]
  /// The document it was read from.
  package let json: String

  /// A CA operator (Let's Encrypt, GlobalSign, …): the unit of rehearsal.
  package struct Operator: Sendable {
    package let name: String
    package let families: [Family]
  }

  /// Where a family stands: issuing is for `current` and `retiring` ones.
  package enum FamilyStatus: String, Sendable, CaseIterable {
    /// Announced, not yet issuing: a CA may switch to it.
    case announced
    case current
    /// Still issuing, until a known date (`until`).
    case retiring
    /// No longer issuing since `until` (its certificates may still be valid).
    case retired
  }

  /// One key type's hierarchy of an operator, under the operator's own name for it
  /// (Let's Encrypt's "Generation Y ECDSA").
  package struct Family: Sendable {
    package let operatorName: String
    package let name: String
    /// "RSA" or "ECDSA".
    package let keyType: String
    package let status: FamilyStatus
    /// When it started issuing, and when it stops or stopped (YYYY-MM-DD), where known.
    package let since: String?
    package let until: String?
    /// The families of the same operator it hands over to.
    package let successors: [String]
    package let note: String?
    package let certificates: [Certificate]
    /// The issuing CAs, current and backup.
    package let issuing: [String]
    package let shapes: [Shape]

    /// "Let's Encrypt Generation Y ECDSA".
    package var title: String { "\(operatorName) \(name)" }

    /// Where the family stood on `date`, by its dates: announced before `since`, retiring before
    /// `until` and retired from it; the recorded status where the dates say nothing. So a chain
    /// of the past is judged at its own date (what would the tools have said then?).
    package func status(at date: Date) -> FamilyStatus {
      if let until, let end = CACatalogue.day(until) {
        if date >= end { return .retired }
        if status == .retiring || status == .retired { return .retiring }
      }
      if let since, let start = CACatalogue.day(since), date < start { return .announced }
      return status
    }

    /// Whether it issues on `date`.
    package func issues(at date: Date) -> Bool { [.current, .retiring].contains(status(at: date)) }
  }

  /// The start of day `text` (YYYY-MM-DD), UTC.
  package static func day(_ text: String) -> Date? { ISO8601.date(from: text + "T00:00:00Z") }

  /// One certificate of a family.
  package struct Certificate: Sendable {
    /// Its subject's Common Name.
    package let name: String
    /// How it stands in the family, in words (`root`, `cross-signed by ISRG Root X1, issued
    /// 2026-05-13`, `issuing CA`).
    package let role: String
    package let status: Status
    /// Base64 SHA-256 of its SubjectPublicKeyInfo; nil where no certificate could be read.
    package let spkiSHA256: String?
    /// Base64 SHA-256 of the certificate; nil likewise.
    package let certificateSHA256: String?
    /// The PEM the hashes were read from, under `catalogue/certificates/`.
    package let pem: String?
    /// Where the certificate (or the statement about it) was read, and when.
    package let source: String
    /// The last day the certificate is valid (`notAfter`, YYYY-MM-DD), where recorded: what
    /// `cnpin convert` names as the soonest rotation of an exported key.
    package let validUntil: String?
  }

  /// Whether a certificate is in use.
  package enum Status: String, Sendable, CaseIterable {
    case current
    /// Valid, announced as a backup: the CA may issue from it "at any time, without warning".
    case backup
    /// No longer issuing, or expired.
    case retired
    /// Replaced by a certificate with the same name and key (a re-issued cross-sign).
    case replaced
  }

  /// A chain shape, root first, without its issuing CA and leaf: what a store verifies above the
  /// issuing CA.
  package struct Shape: Sendable {
    package let above: [String]
    /// The stores that verify this shape.
    package let stores: String
  }

  /// A dated event of a root store, a root program or the CA/Browser Forum.
  package struct Event: Sendable {
    package let date: String
    /// The stores or programs it concerns (empty: every one).
    package let stores: [String]
    package let kind: EventKind
    /// The operators it concerns (empty: every one).
    package let operators: [String]
    /// The roots it removes, by Common Name (`rootRemoved`).
    package let roots: [String]
    package let summary: String
    package let source: String
  }

  /// What an event does to pins.
  package enum EventKind: String, Sendable, CaseIterable {
    /// A root leaves the stores named: a chain pinned to it alone stops being verified there.
    case rootRemoved
    /// Leaves are reissued more often: leaf-scoped key and certificate pins rotate sooner.
    case leafLifetime
    /// CAs issue new intermediates: `exact` intermediate links and intermediate key pins break.
    case intermediates
    /// Changes no pin by itself: shown by `cnpin catalogue`, never warned about.
    case notice
  }

  /// Every family, operator by operator.
  package var families: [Family] { operators.flatMap(\.families) }

  /// The family of `operatorName` called `name`.
  package func family(_ name: String, of operatorName: String) -> Family? {
    operators.first { $0.name == operatorName }?.families.first { $0.name == name }
  }

  /// "CA catalogue 2026.12.06, facts of 2026-12-06": how every output names it.
  package var label: String { "CA catalogue \(version), facts of \(date)" }
}
