import Foundation

/// Writes generated values as XML property lists and as JSON, with the input choosing every
/// spelling the formats allow (escapes, entities, CDATA, comments, number forms, whitespace) and,
/// rarely, a mistake (an unclosed or mismatched element, a stray byte, a trailing comma).
public struct TextWriter {
  private var input: FuzzInput
  private var output: [UInt8] = []

  private init(_ input: FuzzInput) { self.input = input }

  public static func xmlPropertyList(_ value: FuzzValue, _ input: inout FuzzInput) -> [UInt8] {
    var writer = TextWriter(input)
    writer.emit(writer.input.pick([#"<?xml version="1.0" encoding="UTF-8"?>"#, "", #"<?xml version="1.0"?>"#]))
    if writer.input.byte() & 1 == 0 {
      writer.emit(#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#)
    }
    writer.emit(#"<plist version="1.0">"#)
    writer.xml(value)
    writer.emit("</plist>")
    input = writer.input
    return writer.output
  }

  public static func json(_ value: FuzzValue, _ input: inout FuzzInput) -> [UInt8] {
    var writer = TextWriter(input)
    if writer.input.rarely(32) { writer.output += [0xEF, 0xBB, 0xBF] }
    writer.json(value)
    input = writer.input
    return writer.output
  }

  private mutating func emit(_ text: String) { output.append(contentsOf: text.utf8) }

  private mutating func emit(_ scalar: Unicode.Scalar) { UTF8.encode(scalar) { output.append($0) } }

  private mutating func space() {
    if input.rarely(4) { emit(input.pick(["\n", " ", "\t", "\r\n", "  \n  "])) }
  }

  /// A mistake, about once in 64 places: the readers must refuse it with a clear error.
  private mutating func mistake(_ choices: [String]) { if input.rarely(64) { emit(input.pick(choices)) } }

  // MARK: XML

  private mutating func xml(_ value: FuzzValue) {
    space()
    if input.rarely(16) { emit("<!-- \(input.pick(["c", "-", "a -- b"])) -->") }
    mistake(["<", "&", "<unknown/>", "</dict>", "<![CDATA[", "&bogus;", "<key>k</key>", "\u{0}", "<dict"])
    switch value {
    case .dictionary(let entries):
      if entries.isEmpty, input.byte() & 1 == 1 { return emit("<dict/>") }
      emit("<dict>")
      for (key, element) in entries {
        space()
        emit("<key>")
        xmlText(key)
        emit("</key>")
        xml(element)
      }
      emit(input.rarely(64) ? "</array>" : "</dict>")
    case .array(let elements):
      if elements.isEmpty, input.byte() & 1 == 1 { return emit("<array/>") }
      emit("<array>")
      for element in elements { xml(element) }
      emit("</array>")
    case .string(let text):
      if text.isEmpty, input.byte() & 1 == 1 { return emit("<string/>") }
      emit("<string>")
      xmlText(text)
      emit("</string>")
    case .integer(let number):
      emit(
        "<integer>\(input.pick(["\(number)", "0x\(String(number, radix: 16))", "+\(number)", " \(number) ", "\(number)9999999999"]))</integer>"
      )
    case .real(let number):
      emit("<real>\(input.pick(["\(number)", "nan", "+infinity", "-inf", "1e400", "1.", ".5", "-0"]))</real>")
    case .bool(let flag): emit(flag ? "<true/>" : input.pick(["<false/>", "<false></false>"]))
    case .date(let seconds):
      emit("<date>\(input.pick([isoDate(seconds), "2030-02-30T00:00:00Z", "2030-01-01T00:00:00+01:00", "2030-01-01"]))</date>")
    case .data(let bytes):
      emit("<data>")
      var base64 = base64Encode(bytes)
      if input.rarely(4), !base64.isEmpty {
        base64.insert(
          contentsOf: input.pick(["\n", " ", "\t"]), at: base64.index(base64.startIndex, offsetBy: input.below(base64.count)))
      }
      emit(base64)
      emit("</data>")
    }
  }

  private mutating func xmlText(_ text: String) {
    if input.rarely(8), !text.contains("]]>") { return emit("<![CDATA[\(text)]]>") }
    for scalar in text.unicodeScalars {
      switch (scalar, input.below(4)) {
      case ("&", _): emit("&amp;")
      case ("<", _): emit("&lt;")
      case (_, 3) where scalar.value > 0x20:
        emit(input.byte() & 1 == 0 ? "&#\(scalar.value);" : "&#x\(String(scalar.value, radix: 16));")
      case (">", _): emit(input.pick([">", "&gt;"]))
      case ("\"", _): emit(input.pick(["\"", "&quot;"]))
      case ("'", _): emit(input.pick(["'", "&apos;"]))
      default: emit(scalar)
      }
    }
  }

  // MARK: JSON

  private mutating func json(_ value: FuzzValue) {
    space()
    mistake(["{", "[", ",", "//", "/*", "'", "\u{0}", "\"", "NaN", "-", "}"])
    switch value {
    case .dictionary(var entries):
      if input.rarely(16), let first = entries.first { entries.append(first) }
      emit("{")
      for (index, (key, element)) in entries.enumerated() {
        if index > 0 { emit(",") }
        space()
        jsonString(key)
        space()
        emit(":")
        json(element)
      }
      mistake([","])
      emit("}")
    case .array(let elements):
      emit("[")
      for (index, element) in elements.enumerated() {
        if index > 0 { emit(",") }
        json(element)
      }
      emit("]")
    case .string(let text): jsonString(text)
    case .integer(let number):
      emit(input.pick(["\(number)", "\(number).0", "\(number)e0", "0\(number)", "\(number)00000000000000000000"]))
    case .real(let number): emit(input.pick(["\(number.isFinite ? "\(number)" : "1e999")", "-0", "1E+2", "1e-400", ".5", "1."]))
    case .bool(let flag): emit(flag ? "true" : input.pick(["false", "null"]))
    case .date(let seconds): jsonString(input.pick([isoDate(seconds), "2030-01-01T00:00:00.123456Z", "2030-13-01T00:00:00Z"]))
    case .data(let bytes): jsonString(base64Encode(bytes))
    }
  }

  private mutating func jsonString(_ text: String) {
    emit("\"")
    for unit in text.utf16 {
      let scalar = Unicode.Scalar(unit)
      switch (unit, input.below(8)) {
      case (0x22, _): emit("\\\"")
      case (0x5C, _): emit("\\\\")
      case (0..<0x20, _), (0xD800...0xDFFF, _), (_, 7): emit("\\u" + hex4(unit))
      case (0x2F, 6): emit("\\/")
      default: if let scalar { emit(scalar) }
      }
    }
    if input.rarely(64) { emit(input.pick(["\\ud800", "\\udc00\\ud800", "\\x41", "\\u12", "\u{7F}"])) }
    emit("\"")
  }

  private func hex4(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since 1970 (clamped to years Foundation can format).
func isoDate(_ seconds: Double) -> String {
  let clamped = seconds.isFinite ? max(-62_135_596_800, min(253_402_300_799, seconds)) : 0
  return Date(timeIntervalSince1970: clamped.rounded(.down)).formatted(.iso8601)
}

private let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

func base64Encode(_ bytes: [UInt8]) -> String {
  String(decoding: base64EncodedBytes(bytes), as: UTF8.self)
}

/// Base64url of `bytes` (the URL alphabet; `=` padding only when `padded`), as a JWS writes it.
public func base64URL(_ bytes: [UInt8], padded: Bool) -> [UInt8] {
  var text: [UInt8] = []
  text.reserveCapacity((bytes.count + 2) / 3 * 4)
  for byte in base64EncodedBytes(bytes) {
    switch byte {
    case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
    case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
    case UInt8(ascii: "=") where !padded: break
    default: text.append(byte)
    }
  }
  return text
}

/// Base64 (standard alphabet, padded) of `bytes`, as ASCII bytes.
func base64EncodedBytes(_ bytes: [UInt8]) -> [UInt8] {
  var output: [UInt8] = []
  output.reserveCapacity((bytes.count + 2) / 3 * 4)
  var index = 0
  while index < bytes.count {
    let count = min(3, bytes.count - index)
    var value = UInt32(bytes[index]) << 16
    if count > 1 { value |= UInt32(bytes[index + 1]) << 8 }
    if count > 2 { value |= UInt32(bytes[index + 2]) }
    for position in 0..<4 {
      output.append(position <= count ? base64Alphabet[Int(value >> (18 - 6 * UInt32(position)) & 0x3F)] : UInt8(ascii: "="))
    }
    index += 3
  }
  return output
}
