/// Just enough of Kotlin's lexical rules to read OkHttp `CertificatePinner.Builder()` calls from
/// a source file as the compiler reads them: comments skipped (block comments nest, as Kotlin's
/// do; a `//` inside a string, as base64 can hold, is no comment), string literals (raw ones
/// included) unescaped and marked when they hold a template, each token with its line.
enum KotlinSource {
  enum Kind: Equatable {
    /// `.name(`
    case call(String)
    /// `name(` without a dot before it (inside `apply { … }`, say).
    case bareCall(String)
    /// A string literal; `template` when it holds a `$` template, whose value only running the
    /// code would tell.
    case string(String, template: Bool)
    /// `(` that opens no call.
    case open
    /// `)`
    case close
    case comma
    /// Anything else outside comments and strings: a name, a number, an operator.
    case other
  }

  struct Token: Equatable {
    let kind: Kind
    let line: Int
  }

  /// The tokens of `text`, in order.
  static func tokens(_ text: String) -> [Token] {
    let scalars = Array(text.unicodeScalars)
    var tokens: [Token] = []
    var index = 0
    var line = 1
    func at(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
    func advance(_ count: Int = 1) {
      for _ in 0..<count where index < scalars.count {
        if scalars[index] == "\n" { line += 1 }
        index += 1
      }
    }
    func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
      scalar.properties.isAlphabetic || scalar == "_" || ("0"..."9").contains(scalar)
    }
    while index < scalars.count {
      let scalar = scalars[index]
      let start = line
      if scalar == "/" && at(1) == "/" {
        while index < scalars.count && scalars[index] != "\n" { advance() }
      } else if scalar == "/" && at(1) == "*" {
        // Kotlin's block comments nest: `/* a /* b */ c */` is one comment.
        var depth = 0
        repeat {
          if scalars[index] == "/" && at(1) == "*" {
            depth += 1
            advance(2)
          } else if scalars[index] == "*" && at(1) == "/" {
            depth -= 1
            advance(2)
          } else {
            advance()
          }
        } while depth > 0 && index < scalars.count
      } else if scalar == "\"" && at(1) == "\"" && at(2) == "\"" {
        advance(3)
        var value = String.UnicodeScalarView()
        while index < scalars.count && !(scalars[index] == "\"" && at(1) == "\"" && at(2) == "\"") {
          value.append(scalars[index])
          advance()
        }
        advance(3)
        let text = String(value)
        tokens.append(Token(kind: .string(text, template: text.contains("$")), line: start))
      } else if scalar == "\"" {
        advance()
        var value = String.UnicodeScalarView()
        var template = false
        while index < scalars.count && scalars[index] != "\"" && scalars[index] != "\n" {
          if scalars[index] == "\\", let next = at(1) {
            value.append(next == "n" ? "\n" : next == "t" ? "\t" : next)
            advance(2)
          } else {
            if scalars[index] == "$" { template = true }
            value.append(scalars[index])
            advance()
          }
        }
        advance()
        tokens.append(Token(kind: .string(String(value), template: template), line: start))
      } else if scalar == "'" {
        // A character literal: `'"'` holds no string.
        advance()
        while index < scalars.count && scalars[index] != "'" && scalars[index] != "\n" {
          advance(scalars[index] == "\\" ? 2 : 1)
        }
        advance()
        tokens.append(Token(kind: .other, line: start))
      } else if scalar == "." || isNamePart(scalar) {
        let dotted = scalar == "."
        var end = dotted ? index + 1 : index
        while end < scalars.count && isNamePart(scalars[end]) { end += 1 }
        let name = String(String.UnicodeScalarView(scalars[(dotted ? index + 1 : index)..<end]))
        var after = end
        while after < scalars.count && (scalars[after] == " " || scalars[after] == "\t") { after += 1 }
        if !name.isEmpty && after < scalars.count && scalars[after] == "(" {
          tokens.append(Token(kind: dotted ? .call(name) : .bareCall(name), line: start))
          advance(after + 1 - index)
        } else {
          tokens.append(Token(kind: .other, line: start))
          advance(max(end - index, 1))
        }
      } else {
        switch scalar {
        case "(": tokens.append(Token(kind: .open, line: start))
        case ")": tokens.append(Token(kind: .close, line: start))
        case ",": tokens.append(Token(kind: .comma, line: start))
        case " ", "\t", "\n", "\r": break
        default: tokens.append(Token(kind: .other, line: start))
        }
        advance()
      }
    }
    return tokens
  }
}
