import CNPinning
import Foundation

/// The one clock of cnpin: now, or the moment `--at` names, so that a rehearsal (and a test) can
/// judge a chain, a catalogue's dates and every horizon as of another day. Offline only: a live
/// connection is verified now.
enum Clock {
  /// `--at YYYY-MM-DD` (the start of that day, UTC) or `--at YYYY-MM-DDTHH:MM:SSZ`; else now.
  static func now(_ arguments: Arguments) throws(CLIError) -> Date {
    guard let text = arguments.value(.at) else { return Date() }
    guard let date = ISO8601.date(from: text.utf8.count == 10 ? text + "T00:00:00Z" : text) else {
      throw .usage("\(Option.at) takes a day (2026-02-19) or a time (2026-02-19T14:15:03Z), not \(VisibleText.quoted(text))")
    }
    return date
  }
}
