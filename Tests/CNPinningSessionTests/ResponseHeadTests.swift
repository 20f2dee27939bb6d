import Foundation
import Testing

@testable import CNPinningSession

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningCurl
#endif

/// The response head, parsed from the bytes libcurl hands over.
@Suite("Response head")
struct ResponseHeadTests {
  static func head(_ lines: [String]) -> ResponseHead {
    var head = ResponseHead()
    for line in lines {
      let accepted = Array(line.utf8).withUnsafeBytes { head.consume(line: $0) }
      #expect(accepted)
    }
    return head
  }

  /// RFC 9112 §6.3: chunks frame a body only when chunked is the last coding of the last
  /// Transfer-Encoding field (what libcurl frames by is read from libcurl: BodyFramingTests).
  @Test func chunkingIsTheLastCodingOfTheLastTransferEncoding() {
    func chunked(_ fields: [String]) -> Bool {
      Self.head(["HTTP/1.1 200 OK\r\n"] + fields.map { $0 + "\r\n" } + ["\r\n"]).endsChunked
    }
    #expect(chunked(["Transfer-Encoding: chunked"]))
    #expect(chunked(["Transfer-Encoding: gzip, Chunked "]))
    #expect(chunked(["Transfer-Encoding: gzip", "transfer-encoding:chunked"]))
    #expect(!chunked([]))
    #expect(!chunked(["Transfer-Encoding: gzip"]))
    #expect(!chunked(["TRANSFER-ENCODING: chunked, gzip"]))
    #expect(!chunked(["Transfer-Encoding: chunked", "Transfer-Encoding: identity"]))
    #expect(!chunked(["Transfer-Encoding: chunked;x=1"]))
  }

  /// RFC 9110 §8.6: a list of one value repeated is one length; any other value is a conflict,
  /// noted with the first two that differ, as written.
  @Test func differingContentLengthsAreNotedAsWritten() {
    func conflict(_ fields: [String]) -> [String]? {
      let head = Self.head(["HTTP/1.1 200 OK\r\n"] + fields.map { $0 + "\r\n" } + ["\r\n"])
      return head.conflictingContentLengths.map { [$0.first, $0.other] }
    }
    #expect(conflict(["Content-Length: 5"]) == nil)
    #expect(conflict(["Content-Length: 5, 5", "content-length:5 "]) == nil)
    #expect(conflict(["Content-Length: 5", "Content-Length: 7"]) == ["5", "7"])
    #expect(conflict(["Content-Length: 5,7,9"]) == ["5", "7"])
    #expect(conflict(["Content-Length: 5", "Content-Length: 05"]) == ["5", "05"])
    #expect(conflict(["Content-Length: 5", "Content-Length:"]) == ["5", ""])
    // A new status line (after 100 Continue) starts over.
    #expect(
      Self.head(["HTTP/1.1 100 Continue\r\n", "Content-Length: 1\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "Content-Length: 2\r\n"])
        .conflictingContentLengths == nil)
  }

  /// Values are compared as the head's readers see them (decoded, invalid UTF-8 repaired): the
  /// same bytes repeated are one length, and a refusal never names two values that look alike.
  @Test func repeatedBytesThatAreNotUTF8AreOneLength() {
    var head = ResponseHead()
    for line in [
      Array("HTTP/1.1 200 OK\r\n".utf8), Array("Content-Length: 5".utf8) + [0xFF] + Array(", 5".utf8) + [0xFF, 0x0D, 0x0A],
    ] {
      #expect(line.withUnsafeBytes { head.consume(line: $0) })
    }
    #expect(head.conflictingContentLengths == nil)
  }

  @Test func fieldsAreTrimmedAndRepeatsJoinedUnderTheFirstSpelling() throws {
    let parsed = try #require(
      Self.head(["HTTP/1.1 200 OK\r\n", "Set-Cookie: a=1\r\n", "set-cookie:b=2 \r\n", "X-Empty:\r\n", "\r\n"]).parsed())
    #expect(parsed.statusCode == 200 && parsed.httpVersion == "HTTP/1.1")
    #expect(parsed.fields == ["Set-Cookie": "a=1, b=2", "X-Empty": ""])
  }

  /// A field read straight from the bytes (what redirects and cookies read, without making
  /// Foundation's response) is what the parse gives for it, in any case; so is the status code.
  @Test func aFieldReadAloneIsWhatTheParseGivesForIt() throws {
    let head = Self.head([
      "HTTP/1.1 302 Found\r\n", "set-cookie: a=1\r\n", "Location: /next \r\n", "SET-COOKIE:b=2\r\n", "X-Empty:\r\n",
      "no colon\r\n", "\r\n",
    ])
    let parsed = try #require(head.parsed())
    #expect(head.statusCode == 302 && parsed.statusCode == 302)
    for name in ["Set-Cookie", "set-cookie", "LOCATION", "x-empty"] {
      let fromParse = parsed.fields.first { $0.key.lowercased() == name.lowercased() }?.value
      #expect(head.value(forField: name) == fromParse, "\(name)")
    }
    #expect(head.value(forField: "Set-Cookie") == "a=1, b=2")
    #expect(head.value(forField: "Set-Cookie2") == nil && head.value(forField: "no colon") == nil)
    #expect(Self.head(["HTTP/1.1 abc\r\n", "Location: /\r\n"]).statusCode == nil)
    #expect(Self.head(["HTTP/1.1 abc\r\n", "Location: /\r\n"]).value(forField: "Location") == nil)
  }

  /// An HTTP/2 head's names are all lower case; an upper-case spelling arriving after them still
  /// joins the first (lower-case) one.
  @Test func repeatsJoinWhetherTheFirstSpellingIsLowerCaseOrNot() throws {
    let lower = try #require(Self.head(["HTTP/2 200\r\n", "vary: a\r\n", "vary: b\r\n", "etag: 1\r\n"]).parsed())
    #expect(lower.fields == ["vary": "a, b", "etag": "1"])
    let mixed = try #require(
      Self.head([
        "HTTP/1.1 200 OK\r\n", "set-cookie: a=1\r\n", "x-a: 1\r\n", "Set-Cookie: b=2\r\n", "X-B: 3\r\n",
        "X-A: 2\r\n", "x-b: 4\r\n",
      ]).parsed())
    #expect(mixed.fields == ["set-cookie": "a=1, b=2", "x-a": "1, 2", "X-B": "3, 4"])
  }

  @Test func aNewStatusLineStartsOver() throws {
    let parsed = try #require(
      Self.head(["HTTP/1.1 100 Continue\r\n", "X-A: 1\r\n", "\r\n", "HTTP/2 204\r\n", "X-B: 2\r\n"]).parsed())
    #expect(parsed.statusCode == 204 && parsed.httpVersion == "HTTP/2")
    #expect(parsed.fields == ["X-B": "2"])
  }

  @Test func tenThousandRepeatsJoinInOnePass() throws {
    let lines = ["HTTP/1.1 200 OK\r\n"] + (0..<10_000).map { "X-R: \($0)\r\n" }
    let parsed = try #require(Self.head(lines).parsed())
    #expect(parsed.fields["X-R"]?.split(separator: ",").count == 10_000)
  }

  @Test func statusLinesAndOddFieldLinesAreReadAsLibcurlHandsThemOver() throws {
    let spaced = try #require(Self.head(["HTTP/1.1  404  Not Found\r\n"]).parsed())
    #expect(spaced.statusCode == 404 && spaced.httpVersion == "HTTP/1.1")
    for status in ["HTTP/1.1\r\n", "HTTP/1.1 99\r\n", "HTTP/1.1 1000 Big\r\n", "HTTP/1.1 200\tOK\r\n"] {
      #expect(Self.head([status]).parsed() == nil, "\(status)")
    }
    let parsed = try #require(
      Self.head([
        "HTTP/2 200\r\n", "no colon here\r\n", " \t\r\n", "Content-Type : text/html\r\n", "ETAG: \"1\"\r\n",
        "etag: \"2\"\r\n", "x-a:1\n",
      ]).parsed())
    #expect(parsed.fields == ["Content-Type": "text/html", "ETAG": "\"1\", \"2\"", "x-a": "1"])
  }

  /// The code is read as `Int(String)` reads it (and kept when 100–999), without the string.
  @Test func statusCodesAreReadAsIntReadsThem() {
    let codes = [
      "200", "+200", "0200", "000999", "-200", "-0", "+", "-", "", "2a0", "1000", "099", "+-200", "٢٠٠", "2\u{0}0",
      "99999999999999999999200",
    ]
    for code in codes {
      let expected = Int(code).flatMap { (100...999).contains($0) ? $0 : nil }
      #expect(Self.head(["HTTP/1.1 \(code) OK\r\n"]).parsed()?.statusCode == expected, "\(code)")
    }
  }

  @Test func headsWithoutAStatusLineOrBeyondTheLimitAreRefused() {
    #expect(Self.head(["X-A: 1\r\n"]).parsed() == nil)
    #expect(Self.head(["HTTP/1.1 abc\r\n"]).parsed() == nil)
    var head = ResponseHead()
    let big = Array(("X-Big: " + String(repeating: "x", count: ResponseHead.maximumSize) + "\r\n").utf8)
    #expect(!big.withUnsafeBytes { head.consume(line: $0) })
  }
}
