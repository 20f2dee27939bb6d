/// Just enough of Kotlin's lexical rules to read OkHttp `CertificatePinner.Builder()` calls from
/// a source file: comments skipped (a `//` inside a string, as base64 can hold, is no comment),
/// string literals unescaped, `.name(` recognised as a call.
enum KotlinSource {
  enum Token: Equatable {
    /// `.name(`
    case call(String)
    case string(String)
    /// `)`: the end of a call's arguments.
    case close
  }

  /// The calls, string literals and closing parentheses of `text`, in order.
  static func stringsOutsideComments(_ text: String) -> [Token] {
    let scalars = Array(text.unicodeScalars)
    var tokens: [Token] = []
    var index = 0
    func at(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "/" && at(1) == "/" {
        while index < scalars.count && scalars[index] != "\n" { index += 1 }
      } else if scalar == "/" && at(1) == "*" {
        index += 2
        while index < scalars.count && !(scalars[index] == "*" && at(1) == "/") { index += 1 }
        index += 2
      } else if scalar == "\"" {
        var value = String.UnicodeScalarView()
        index += 1
        while index < scalars.count && scalars[index] != "\"" && scalars[index] != "\n" {
          if scalars[index] == "\\", let next = at(1) {
            value.append(next == "n" ? "\n" : next == "t" ? "\t" : next)
            index += 2
          } else {
            value.append(scalars[index])
            index += 1
          }
        }
        index += 1
        tokens.append(.string(String(value)))
      } else if scalar == "." {
        var end = index + 1
        while end < scalars.count && (scalars[end].properties.isAlphabetic || scalars[end] == "_") { end += 1 }
        if end > index + 1 && end < scalars.count && scalars[end] == "(" {
          tokens.append(.call(String(String.UnicodeScalarView(scalars[(index + 1)..<end]))))
          index = end + 1
        } else {
          index += 1
        }
      } else {
        if scalar == ")" { tokens.append(.close) }
        index += 1
      }
    }
    return tokens
  }
}
