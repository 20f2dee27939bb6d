import CNPinning
import Foundation

/// `--warn-days N`: what falls due within N days, so that a CI job fails weeks before users do: a
/// certificate of a verified chain, a host's pins (`expirationDate`), an enterprise policy (`exp`),
/// and the CA catalogue's dated events and family endings that touch a host's pins.
struct ExpiryHorizon {
  /// Something that stops being valid, or changes, within the horizon.
  struct Warning: Encodable, Equatable {
    /// "certificate", "pins", "policy" or "calendar".
    let kind: String
    /// The certificate's Common Name, the pinned host, or the policy file.
    let name: String
    let expires: String
    let daysLeft: Int
    /// For a calendar event: what happens, and what of the host's pins it touches.
    var event: String? = nil
    var touches: [String]? = nil

    var line: String {
      guard let event else { return "\(kind) \(Output.value(name)) expires \(expires) (in \(daysLeft) days)" }
      return
        "calendar \(expires) (in \(daysLeft) days): \(Output.value(event)); for \(Output.value(name)): \((touches ?? []).map(Output.value).joined(separator: "; "))"
    }
  }

  let days: Int
  let now: Date

  /// `--warn-days`, when given: a whole number of days from 1 to 3650.
  init?(_ arguments: Arguments) throws(CLIError) {
    guard let text = arguments.value(.warnDays) else { return nil }
    guard let days = Int(text), (1...3650).contains(days) else {
      throw .usage("\(Option.warnDays) needs a whole number of days from 1 to 3650, not \"\(text)\"")
    }
    self.days = days
    self.now = try Clock.now(arguments)
  }

  private func warning(_ kind: String, _ name: String, _ date: Date) -> Warning? {
    guard date < now.addingTimeInterval(TimeInterval(days) * 86_400) else { return nil }
    let left = max(0, Int((date.timeIntervalSince(now) / 86_400).rounded(.down)))
    return Warning(kind: kind, name: name, expires: ISO8601.string(from: date), daysLeft: left)
  }

  /// The certificates of `chain` that expire within the horizon.
  func certificates(_ chain: [CNCertificate]) -> [Warning] {
    chain.compactMap { warning("certificate", $0.displayName, $0.notValidAfter) }
  }

  /// The pins of `host`, when they have an `expirationDate` within the horizon.
  func pins(of host: String, _ configuration: CNConfiguration?) -> [Warning] {
    guard let date = configuration?.expirationDate else { return [] }
    return warning("pins", host, date).map { [$0] } ?? []
  }

  /// The catalogue's events and family endings within the horizon that touch `host`'s pins.
  func calendar(of host: String, _ configuration: CNConfiguration?, catalogue: CACatalogue) -> [Warning] {
    guard let configuration else { return [] }
    return catalogue.calendar(for: configuration, from: now, to: now.addingTimeInterval(TimeInterval(days) * 86_400)).map {
      due in
      let date = CACatalogue.day(due.date) ?? now
      return Warning(
        kind: "calendar", name: host, expires: due.date,
        daysLeft: max(0, Int((date.timeIntervalSince(now) / 86_400).rounded(.down))), event: due.summary,
        touches: due.touches)
    }
  }

  /// The enterprise policy in `path`, read without verifying its signature (only its `exp`).
  func policy(at path: String) throws(CLIError) -> [Warning] {
    let token = try InputFile.read(path, "\(Option.policy) \(path)")
    do {
      return warning("policy", path, try CNEnterprisePolicy.unverifiedExpiry(of: token)).map { [$0] } ?? []
    } catch {
      throw .configuration("\(Option.policy) \(path): \(error)")
    }
  }
}
