import Foundation

/// Strict ISO 8601 timestamps as configurations write them: `YYYY-MM-DDTHH:MM:SS`, optional
/// fraction, then `Z` or `±HH:MM`. (Foundation's `ISO8601DateFormatter` crashes on some inputs,
/// for example "tomorrow"; configuration parsing must never crash.)
package enum ISO8601 {
  /// Seconds since 1970 of 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z.
  static let validRange: ClosedRange<TimeInterval> = -62_135_596_800...253_402_300_799

  package static func date(from text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.count <= 40 else { return nil }
    var cursor = ByteCursor(bytes)
    func separator(_ character: Unicode.Scalar) -> Bool { cursor.consume(UInt8(ascii: character)) }
    guard let year = cursor.decimal(digits: 4), separator("-"), let month = cursor.decimal(digits: 2), separator("-"),
      let day = cursor.decimal(digits: 2), separator("T"), let hour = cursor.decimal(digits: 2), separator(":"),
      let minute = cursor.decimal(digits: 2), separator(":"), let second = cursor.decimal(digits: 2),
      (1...12).contains(month), (1...CalendarMath.daysIn(month: month, year: year)).contains(day),
      hour < 24, minute < 60, second < 60
    else { return nil }
    var fraction = 0.0
    if separator(".") {
      let start = cursor.position
      guard cursor.skip(while: { $0 >= 0x30 && $0 <= 0x39 }) > 0, let value = Double("0." + cursor.text(from: start)) else {
        return nil
      }
      fraction = value
    }
    var offset = 0
    if !separator("Z") {
      guard let sign = cursor.next(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
        let hours = cursor.decimal(digits: 2), separator(":"), let minutes = cursor.decimal(digits: 2), hours < 24,
        minutes < 60
      else { return nil }
      offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
    guard cursor.isAtEnd else { return nil }
    let days = CalendarMath.daysSinceEpoch(year: year, month: month, day: day)
    let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offset
    return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
  }
}

extension ISO8601 {
  /// `YYYY-MM-DDTHH:MM:SSZ` (with a fraction when the date has one), in the same proleptic
  /// Gregorian calendar ``date(from:)`` reads, so every date round-trips. (Foundation's formatter
  /// switches to the Julian calendar before 1582.)
  package static func string(from date: Date) -> String {
    let total = min(max(date.timeIntervalSince1970, validRange.lowerBound), validRange.upperBound)
    let whole = total.rounded(.down)
    let seconds = Int(whole)
    let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
    let remainder = seconds - days * 86400
    let (year, month, day) = CalendarMath.civil(fromDaysSinceEpoch: days)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    var text =
      "\(yearText)-\(two(month))-\(two(day))T\(two(remainder / 3600)):\(two(remainder % 3600 / 60)):\(two(remainder % 60))"
    let fraction = total - whole
    if fraction > 0 {
      let digits = String(format: "%.6f", fraction).dropFirst(1)  // ".123456"
      text += digits.replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
    }
    return text + "Z"
  }
}

/// Proleptic Gregorian calendar arithmetic, shared by the certificate and configuration readers.
enum CalendarMath {
  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days from 1970-01-01 (Howard Hinnant's algorithm).
  static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146097 + dayOfEra - 719468
  }

  /// The inverse of `daysSinceEpoch`.
  static func civil(fromDaysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let dayOfEra = z - era * 146097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
