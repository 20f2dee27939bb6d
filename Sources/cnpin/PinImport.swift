import CNPinning
import Foundation

/// A key format read back into CNPinning host entries (`cnpin convert FILE --from FORMAT`), by
/// the reader `lint --against` uses (`ExportedPins`): each host's keys (scoped as the format
/// scopes them), subdomain rule, expiry, enforcement and report URI. What the reader reports as
/// not modelled, and what CNPinning's format cannot hold, is not carried and is named with its
/// line; a host whose pins would change is left out rather than written looser or stricter.
struct PinImport {
  /// Host name → entry, for `CNPinningDocument(configuration:)`.
  private(set) var configurations: [String: CNConfiguration] = [:]
  private(set) var findings: [PinExport.Finding] = []

  var isComplete: Bool { findings.allSatisfy(\.carried) }

  init(_ pins: ExportedPins) {
    let format = pins.format
    for text in pins.unmodelled {
      findings.append(PinExport.Finding(path: text, message: "not modelled", carried: false))
    }
    for name in pins.hosts.keys.sorted() where !pins.inexact.contains(name) {
      let place = "\(pins.lines[name] ?? "no line"): \(Output.value(name))"
      // OkHttp adds a `**.` pattern's keys to the hosts below it; a parent read inexactly
      // would add keys of its own plain pattern too.
      if pins.format == .okHttp, let parent = pins.inexact.sorted().first(where: { name.hasSuffix(".\($0)") }) {
        findings.append(
          .init(path: place, message: "under \(Output.value(parent)), whose keys are not read exactly: left out", carried: false))
        continue
      }
      let host = Self.merged(name, in: pins)
      guard !host.keys.isEmpty || !host.leafKeys.isEmpty else {
        noteUnpinned(name, place: place, in: pins)
        continue
      }
      let scope: CNPinScope = format == .nsPinnedDomains ? .ca : .any
      let keys = host.keys.sorted().map { ($0, scope) } + host.leafKeys.sorted().map { ($0, CNPinScope.leaf) }
      var spkiPins: [CNSPKIPin] = []
      var unreadable: [String] = []
      for (key, scope) in keys {
        do {
          spkiPins.append(try CNSPKIPin(sha256Base64: key, scope: scope))
        } catch {
          unreadable.append("key \(Output.value(key)) \(error.problems.first?.reason ?? "is no SHA-256 digest")")
        }
      }
      // Without one of its keys a host could lose a scope (its only leaf identity), which would
      // loosen it: left out whole.
      guard unreadable.isEmpty else {
        findings.append(.init(path: place, message: "\(unreadable.joined(separator: "; ")): left out", carried: false))
        continue
      }
      let expiration = host.expiration.flatMap { Self.startOfDay($0, place: place, findings: &findings) }
      let reportURI = Self.reportURI(host.reportURIs, place: place, findings: &findings)
      do {
        let configuration = try CNConfiguration(
          includesSubdomains: host.includesSubdomains, spkiPins: spkiPins, expirationDate: expiration, enforce: host.enforce,
          reportURI: reportURI)
        // The host name as CNPinning's format reads it.
        _ = try CNPinningDocument(configuration: [name: configuration])
        configurations[name] = configuration
      } catch {
        let reason = (error as? CNConfigurationError)?.problems.first.map { $0.reason ?? $0.message } ?? "\(error)"
        findings.append(.init(path: place, message: "\(reason): left out", carried: false))
      }
    }
  }

  /// The host's keys and, for OkHttp (which checks the union of every pattern a host matches),
  /// those of each `**.` pattern above it.
  private static func merged(_ name: String, in pins: ExportedPins) -> ExportedPins.Host {
    var host = pins.hosts[name] ?? ExportedPins.Host()
    guard pins.format == .okHttp else { return host }
    for (parent, entry) in pins.hosts where entry.includesSubdomains && name.hasSuffix(".\(parent)") {
      host.keys.formUnion(entry.keys)
    }
    return host
  }

  /// A host the file names without keys is unpinned there. Left out, it stays unpinned unless a
  /// pinned parent covers its subdomains: then CNPinning would pin it, which it cannot undo.
  private mutating func noteUnpinned(_ name: String, place: String, in pins: ExportedPins) {
    let parents = pins.hosts.filter {
      name.hasSuffix(".\($0.key)") && $0.value.includesSubdomains && !($0.value.keys.isEmpty && $0.value.leafKeys.isEmpty)
    }
    if let parent = parents.keys.max(by: { $0.count < $1.count }) {
      findings.append(
        .init(
          path: place,
          message:
            "has no pins, under \(Output.value(parent)) which pins its subdomains: CNPinning has no exemption, so it would be pinned by \(Output.value(parent))'s entry; left out",
          carried: false))
    } else {
      findings.append(.init(path: place, message: "has no pins: left out (unpinned, as in the file)", carried: true))
    }
  }

  /// `YYYY-MM-DD` as TrustKit reads it: the start of that day in UTC (Android takes the device's
  /// time zone). Anything else is named and the pins are carried without an expiry.
  private static func startOfDay(_ text: String, place: String, findings: inout [PinExport.Finding]) -> Date? {
    guard let date = ISO8601.date(from: text + "T00:00:00Z"), PinExport.day(date) == text else {
      findings.append(
        .init(
          path: place, message: "expiry \(Output.value(text)) is no YYYY-MM-DD date: the pins are carried without one",
          carried: false))
      return nil
    }
    return date
  }

  /// TrustKit's report URIs: CNPinning sends a host's reports to one https URL.
  private static func reportURI(_ uris: [String], place: String, findings: inout [PinExport.Finding]) -> URL? {
    var chosen: URL?
    for text in uris {
      guard chosen == nil, let url = URL(string: text), url.scheme?.lowercased() == "https", url.host != nil else {
        let reason = chosen == nil ? "is not an https URL" : "is a second: CNPinning sends a host's reports to one URI"
        findings.append(.init(path: place, message: "report URI \(Output.value(text)) \(reason); not carried", carried: false))
        continue
      }
      chosen = url
    }
    return chosen
  }
}
