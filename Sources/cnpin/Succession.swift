import CNPinning
import Foundation

/// What `cnpin pins` adds for the CA's next step (issue 64): when the catalogue's family of the
/// verified chain has stopped or stops issuing, or has an announced successor, the successor's
/// chain in all its store shapes (so that the CA's next certificates pass), said on standard
/// error and, where the format has comments, in the suggestion; the operator's other key type
/// named with the chain to add (an ACME client's switch brings it overnight).
struct Succession {
  /// The chains to add to the suggestion.
  let chains: [CNChain]
  /// What to say beside them, in formats with comments.
  let comments: [String]

  /// `chain` root → leaf, verified for `host`, judged with the catalogue of `arguments` on `date`;
  /// the notes go to standard error.
  init(_ chain: [CNCertificate], host: String, _ arguments: Arguments, at date: Date) throws(CLIError) {
    let catalogue = try CatalogueOption.catalogue(arguments)
    guard let family = catalogue.family(of: chain) else {
      (chains, comments) = ([], [])
      return
    }
    var chains: [CNChain] = []
    var comments: [String] = []
    if let reason = catalogue.successionReason(of: family, at: date) {
      let successors = catalogue.successors(of: family, at: date)
      if successors.isEmpty {
        comments.append(
          "\(reason), and the \(catalogue.label) names no successor: rehearse the CA's next chain with cnpin pins --chain NEXT.pem --host \(host) --add-to FILE"
        )
      }
      for successor in successors {
        do {
          chains += try SuggestedPins.chains(for: successor, host: host).filter { !chains.contains($0) }
        } catch {
          throw .failed("the successor \(successor.title) of the \(catalogue.label) cannot be pinned: \(error)")
        }
        comments.append(
          "\(reason): the suggestion also carries \(successor.title) (\(CNConfigurationLinter.dates(of: successor, at: date))) in all its store shapes, so that the CA's next certificates pass (\(catalogue.label))"
        )
      }
    }
    for other in catalogue.otherKeyTypes(than: family, at: date) {
      let next = (try? SuggestedPins.chains(for: other, host: host)) ?? []
      Output.error(
        "note: \(Output.value(family.operatorName)) also issues \(other.keyType) (\(Output.value(other.title))): a certificate ordered with such a key comes from it (an ACME client's default can switch overnight); to accept it, add \(next.map { Output.value(Self.describe($0)) }.joined(separator: " and "))"
      )
    }
    for comment in comments { Output.error("note: \(Output.value(comment))") }
    self.chains = chains
    self.comments = comments
  }

  /// A chain in words, root → leaf: `prefixWithNumber "ISRG Root X" → exact "Root YE" (may be
  /// the anchor) → …`.
  static func describe(_ chain: CNChain) -> String {
    chain.links.map { link in
      "\(link.type.rawValue) \(VisibleText.quoted(link.value))" + (link.mayBeAnchor ? " (may be the anchor)" : "")
    }.joined(separator: " → ")
  }
}
