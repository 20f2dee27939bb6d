// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import Foundation

/// One way a server fails, for the fault matrix: the server commits it on the first connection
/// or request it applies to (`LocalTLSServer.Configuration.faultCount` times in all) and serves
/// normally afterwards, so that a test can show the client recovers on the same session.
public enum ServerFault: String, Sendable, CaseIterable {
  /// Reads the ClientHello, then resets the connection (TCP RST).
  case resetDuringHandshake
  /// Answers the ClientHello with a fatal TLS alert (handshake_failure).
  case alertDuringHandshake
  /// Reads the request, then resets the connection.
  case resetAfterRequest
  /// Sends part of the response head, then resets.
  case resetMidHeaders
  /// Sends the head and half the body (Content-Length says more), then resets.
  case resetMidBody
  /// A body delimited by the connection's end that ends with a TCP FIN but no TLS close_notify:
  /// a truncation, which the client must not take for a complete body.
  case eofWithoutCloseNotify
  /// Content-Length says 1,000 bytes, the server sends 500 and closes cleanly (close_notify).
  case contentLengthLongerThanBody
  /// Content-Length says 5 bytes and 12 follow on a keep-alive connection: the response is the
  /// first 5 (HTTP frames by Content-Length); the excess must not be read as the next response.
  case contentLengthShorterThanBody
  /// `Transfer-Encoding: chunked` with a chunk size that is not hexadecimal.
  case invalidChunkedEncoding
  /// One header line of 1 MiB.
  case headOverLimit
  /// 100,000 short header lines.
  case hundredThousandHeaderLines
  /// Sends the head, then nothing (until stopped).
  case stallAfterHeaders
  /// Sends the head, then one body byte per second (Content-Length 3,600).
  case oneBytePerSecond
  /// Answers the first request on a connection, then closes the connection (cleanly, without
  /// answering) when the second request on it arrives: the keep-alive race.
  case closeWhenReused
  /// HTTP/2: answers the first stream, then meets the second with GOAWAY naming the first as
  /// the last it processed, and closes: the client must send the second again elsewhere.
  case goAwayWithStreamsInFlight
  /// HTTP/2: answers the request with RST_STREAM (INTERNAL_ERROR).
  case resetStream
  /// HTTP/2: 10,000 SETTINGS frames (each wanting an acknowledgement) before the answer.
  case settingsFlood
  /// HTTP/2: 10,000 PING frames before the answer.
  case pingFlood
  /// HTTP/2: the connection's SETTINGS give streams an initial window of 0 and no WINDOW_UPDATE
  /// follows, so a request body can never be sent.
  case noFlowControlCredit

  /// Whether the fault happens in the TLS handshake (before any request).
  public var isInHandshake: Bool { self == .resetDuringHandshake || self == .alertDuringHandshake }

  /// Whether the fault can be committed over HTTP/1.1 and over HTTP/2.
  public var appliesToHTTP1: Bool {
    ![.goAwayWithStreamsInFlight, .resetStream, .settingsFlood, .pingFlood, .noFlowControlCredit].contains(self)
  }
  public var appliesToHTTP2: Bool { self != .closeWhenReused }

  /// Whether the fault meets the second request on a connection (a test sends one before).
  public var meetsSecondRequest: Bool { self == .closeWhenReused || self == .goAwayWithStreamsInFlight }
}

extension ServerFault {
  /// How a faulty exchange leaves the connection.
  enum Ending {
    /// TLS close_notify, then FIN.
    case clean
    /// FIN without close_notify.
    case withoutCloseNotify
    /// TCP reset.
    case reset
    /// The connection stays open for the next request.
    case keepServing
  }

  /// The bytes the server sends for the request in place of its answer, and how it ends the
  /// connection; `trickle` is sent afterwards one byte a second.
  struct Misbehaviour {
    var bytes: [UInt8]
    var ending: Ending
    var stalls = false
    var trickle = 0
    /// What is sent each second of the trickle.
    var trickleUnit = [UInt8(ascii: "t")]
  }

  /// What the server does instead of answering (handshake faults and `closeWhenReused` are
  /// committed elsewhere).
  var misbehaviour: Misbehaviour {
    let half = [UInt8](repeating: UInt8(ascii: "x"), count: 500)
    switch self {
    case .resetAfterRequest:
      return Misbehaviour(bytes: [], ending: .reset)
    case .resetMidHeaders:
      return Misbehaviour(bytes: Array("HTTP/1.1 200 OK\r\nContent-Type: text/pl".utf8), ending: .reset)
    case .resetMidBody:
      return Misbehaviour(bytes: Self.head("Content-Length: 1000") + half, ending: .reset)
    case .eofWithoutCloseNotify:
      return Misbehaviour(bytes: Self.head("Connection: close") + half, ending: .withoutCloseNotify)
    case .contentLengthLongerThanBody:
      return Misbehaviour(bytes: Self.head("Content-Length: 1000", "Connection: close") + half, ending: .clean)
    case .contentLengthShorterThanBody:
      return Misbehaviour(bytes: Self.head("Content-Length: 5") + Array("hello, world".utf8), ending: .keepServing)
    case .invalidChunkedEncoding:
      return Misbehaviour(bytes: Self.head("Transfer-Encoding: chunked") + Array("zz\r\nhello\r\n0\r\n\r\n".utf8), ending: .clean)
    case .headOverLimit:
      return Misbehaviour(
        bytes: Self.head("X-Big: " + String(repeating: "b", count: 1 << 20), "Content-Length: 0"), ending: .clean)
    case .hundredThousandHeaderLines:
      let lines = (0..<100_000).map { "X-Line-\($0): v" }
      return Misbehaviour(bytes: Self.head(lines + ["Content-Length: 0"]), ending: .clean)
    case .stallAfterHeaders:
      return Misbehaviour(bytes: Self.head("Content-Length: 1000"), ending: .clean, stalls: true)
    case .oneBytePerSecond:
      return Misbehaviour(bytes: Self.head("Content-Length: 3600"), ending: .clean, trickle: 3600)
    case .resetDuringHandshake, .alertDuringHandshake, .closeWhenReused, .goAwayWithStreamsInFlight, .resetStream,
      .settingsFlood, .pingFlood, .noFlowControlCredit:
      return Misbehaviour(bytes: [], ending: .clean)
    }
  }

  private static func head(_ fields: String...) -> [UInt8] { head(fields) }

  private static func head(_ fields: [String]) -> [UInt8] {
    Array(("HTTP/1.1 200 OK\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
  }

  /// The same fault on HTTP/2 `stream`: frames in place of the answer (framing faults become
  /// their HTTP/2 forms: a Content-Length the DATA frames contradict, a Transfer-Encoding field,
  /// which HTTP/2 forbids). Handshake faults, `noFlowControlCredit` and
  /// `goAwayWithStreamsInFlight` are committed by the connection.
  func http2Misbehaviour(stream: UInt32) -> Misbehaviour {
    typealias H2 = HTTP2Connection
    let half = [UInt8](repeating: UInt8(ascii: "x"), count: 500)
    func head(_ fields: [(String, String)], endStream: Bool = false) -> [UInt8] {
      H2.headers(stream: stream, status: 200, fields: fields, endStream: endStream)
    }
    let answer = head([("content-length", "5")]) + H2.data(stream: stream, Array("hello".utf8), endStream: true)
    switch self {
    case .resetAfterRequest:
      return Misbehaviour(bytes: [], ending: .reset)
    case .resetMidHeaders:
      return Misbehaviour(bytes: Array(head([("content-type", "text/plain")]).prefix(12)), ending: .reset)
    case .resetMidBody:
      return Misbehaviour(
        bytes: head([("content-length", "1000")]) + H2.data(stream: stream, half, endStream: false), ending: .reset)
    case .eofWithoutCloseNotify:
      return Misbehaviour(bytes: head([]) + H2.data(stream: stream, half, endStream: false), ending: .withoutCloseNotify)
    case .contentLengthLongerThanBody:
      return Misbehaviour(
        bytes: head([("content-length", "1000")]) + H2.data(stream: stream, half, endStream: true), ending: .keepServing)
    case .contentLengthShorterThanBody:
      return Misbehaviour(
        bytes: head([("content-length", "5")]) + H2.data(stream: stream, Array("hello, world".utf8), endStream: true),
        ending: .keepServing)
    case .invalidChunkedEncoding:
      return Misbehaviour(
        bytes: head([("transfer-encoding", "chunked")]) + H2.data(stream: stream, Array("zz\r\nhello\r\n".utf8), endStream: true),
        ending: .keepServing)
    case .headOverLimit:
      return Misbehaviour(bytes: head([("x-big", String(repeating: "b", count: 1 << 20))], endStream: true), ending: .keepServing)
    case .hundredThousandHeaderLines:
      return Misbehaviour(bytes: head((0..<100_000).map { ("x-line-\($0)", "v") }, endStream: true), ending: .keepServing)
    case .stallAfterHeaders:
      // The stream never gets its body; the connection serves other streams.
      return Misbehaviour(bytes: head([("content-length", "1000")]), ending: .keepServing)
    case .oneBytePerSecond:
      // The connection sends the byte a second between the frames it serves (see exchangeHTTP2).
      return Misbehaviour(bytes: head([("content-length", "3600")]), ending: .keepServing)
    case .resetStream:
      return Misbehaviour(bytes: H2.resetStream(stream, error: 2), ending: .keepServing)
    case .settingsFlood:
      return Misbehaviour(bytes: Array((0..<10_000).map { _ in H2.settings() }.joined()) + answer, ending: .keepServing)
    case .pingFlood:
      let ping = H2.frame(.ping, [UInt8](repeating: 7, count: 8))
      return Misbehaviour(bytes: Array(repeatElement(ping, count: 10_000).joined()) + answer, ending: .keepServing)
    case .resetDuringHandshake, .alertDuringHandshake, .closeWhenReused, .goAwayWithStreamsInFlight, .noFlowControlCredit:
      return Misbehaviour(bytes: [], ending: .clean)
    }
  }

  /// A TLS record holding a fatal handshake_failure alert (RFC 8446 §6: level 2, description 40).
  static let handshakeFailureAlert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]
}
#endif
