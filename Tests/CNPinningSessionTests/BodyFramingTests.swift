// Uses the OpenSSL test kit and the Linux transport, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
@testable import CNPinningCurl
@testable import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

/// Where a response's body ends, as libcurl framed it: a body that ends only with the connection
/// is whole only when the server said so with TLS close_notify, whatever the head's shape; a
/// head whose lengths disagree is refused; an invalid status line is named as one (issue 56,
/// items 2, 6 and 7).
@Suite("Body framing")
struct BodyFramingTests {
  /// Each head is sent with the body "hello" and the connection then ends without close_notify.
  /// Each of these frames the body by the connection's end (libcurl reads to the close); the
  /// framed shapes do not: a cut there is libcurl's error, and a whole body is whole.
  static let cutShapes: [(name: String, head: String)] = [
    ("no length, Connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"),
    ("HTTP/1.0 without a length", "HTTP/1.0 200 OK\r\n\r\n"),
    ("a status line with two spaces", "HTTP/1.1  200 OK\r\n\r\n"),
    ("a Content-Length too large for libcurl", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
    ("an HTTP/2 status line on HTTP/1.1", "HTTP/2 200\r\n\r\n"),
  ]
  static let framedShapes: [(name: String, response: String)] = [
    ("a Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
    ("repeated equal lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\nContent-Length: 5\r\n\r\nhello"),
    ("chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
  ]

  static func session(answering text: String, closeNotify: Bool) throws -> (LocalTLSServer, CNPinnedSession) {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(identity: pki.leaf, handler: { _ in .verbatim(text, closeNotify: closeNotify) }))
    return (server, try StreamingTests.session(for: server, pki: pki))
  }

  /// Both APIs' outcome for one response: the body, or the error.
  static func outcomes(_ text: String, closeNotify: Bool) async throws -> [Result<Data, CNPinnedSessionError>] {
    let (server, session) = try session(answering: text, closeNotify: closeNotify)
    defer { server.stop() }
    let url = server.url("/", hostName: "api.test")
    var results: [Result<Data, CNPinnedSessionError>] = []
    do {
      results.append(.success(try await session.data(from: url).0))
    } catch let error as CNPinnedSessionError {
      results.append(.failure(error))
    }
    do {
      let response = try await session.exchange(CNHTTPRequest(method: "GET", url: url))
      results.append(.success(try await ExchangeTests.readAll(response)))
    } catch let error as CNPinnedSessionError {
      results.append(.failure(error))
    }
    return results
  }

  @Test(arguments: cutShapes.map(\.name))
  func aBodyEndingWithTheConnectionWithoutCloseNotifyIsRefusedOnBothAPIs(shape: String) async throws {
    let head = try #require(Self.cutShapes.first { $0.name == shape }?.head)
    for result in try await Self.outcomes(head + "hello", closeNotify: false) {
      guard case .failure(let error) = result else {
        Issue.record("\(shape): a cut body was taken for whole: \(result)")
        continue
      }
      #expect(error.code == .connectionLost && error.description.contains("close_notify"), "\(shape): \(error)")
    }
  }

  @Test(arguments: cutShapes.map(\.name))
  func theSameBodyEndedWithCloseNotifyIsWhole(shape: String) async throws {
    let head = try #require(Self.cutShapes.first { $0.name == shape }?.head)
    for result in try await Self.outcomes(head + "hello", closeNotify: true) {
      #expect((try? result.get()) == Data("hello".utf8), "\(shape): \(result)")
    }
  }

  @Test(arguments: framedShapes.map(\.name))
  func aFramedBodyIsWholeWithoutCloseNotify(shape: String) async throws {
    let response = try #require(Self.framedShapes.first { $0.name == shape }?.response)
    for result in try await Self.outcomes(response, closeNotify: false) {
      #expect((try? result.get()) == Data("hello".utf8), "\(shape): \(result)")
    }
  }

  /// RFC 9110 §8.6, RFC 9112 §6.3: differing lengths are an unrecoverable framing error. libcurl
  /// frames by the last, `value(forHeaderField:)` reads the first: the response is refused.
  @Test func differingContentLengthsAreRefusedOnBothAPIs() async throws {
    let shapes = [
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello, ",
      "HTTP/1.1 200 OK\r\nContent-Length: 5, 7\r\n\r\nhello, ",
      "HTTP/1.1 200 OK\r\nContent-Length: 7\r\ncontent-length: 05\r\n\r\nhello, ",
    ]
    for shape in shapes {
      for result in try await Self.outcomes(shape, closeNotify: true) {
        guard case .failure(let error) = result else {
          Issue.record("\(String(reflecting: shape)) was accepted: \(result)")
          continue
        }
        #expect(error.code == .invalidResponse && error.description.contains("Content-Length fields that differ"), "\(error)")
      }
    }
  }

  /// A whole chunked body whose Transfer-Encoding then names another coding (a second field,
  /// `identity`): libcurl reads the chunks, RFC 9112 reads to the connection's end. Refused, as
  /// before, but saying the framing is ambiguous rather than that the body may be cut (issue 65,
  /// item 7).
  @Test(arguments: [
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
  ])
  func chunkedFollowedByAnotherCodingIsRefusedAsAmbiguous(response: String) async throws {
    for result in try await Self.outcomes(response, closeNotify: false) {
      guard case .failure(let error) = result else {
        Issue.record("accepted: \(result)")
        continue
      }
      #expect(error.code == .invalidResponse, "\(error)")
      #expect(error.description.contains("names chunked, but not as the last coding"), "\(error)")
      #expect(!error.description.contains("may be truncated"), "\(error)")
    }
  }

  /// libcurl refuses "0200" and "HTTP/1.1 2000" as unsupported: the error names the status line,
  /// not the URL.
  @Test(arguments: ["HTTP/1.1 0200 OK", "HTTP/1.1 2000 OK", "HTTP/3.7 200 OK"])
  func anInvalidStatusLineIsNamedAsOne(statusLine: String) async throws {
    for result in try await Self.outcomes(statusLine + "\r\nContent-Length: 5\r\n\r\nhello", closeNotify: true) {
      guard case .failure(let error) = result else {
        Issue.record("\(statusLine) was accepted: \(result)")
        continue
      }
      #expect(error.code == .invalidResponse && error.description.contains("status line"), "\(statusLine): \(error)")
    }
  }

  /// The decision alone, for the cases a server cannot easily send: HEAD and bodiless statuses.
  @Test func onlyAStatusWithABodyAndNoLengthOrChunksEndsWithTheConnection() {
    func ends(_ code: Int, length: Int64 = -1, chunked: Bool = false, isHEAD: Bool = false) -> Bool {
      CurlTransfer.bodyEndsWithConnection(.init(responseCode: code, statedLength: length), endsChunked: chunked, isHEAD: isHEAD)
    }
    #expect(ends(200) && ends(404) && ends(500))
    #expect(!ends(200, length: 5) && !ends(200, length: 0) && !ends(200, chunked: true) && !ends(200, isHEAD: true))
    #expect(!ends(204) && !ends(304) && !ends(101) && !ends(0))
  }
}
#endif
