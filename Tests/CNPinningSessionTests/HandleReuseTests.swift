// Uses the test kit's loopback servers and libcurl, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A libcurl handle keeps a plain GET's options for the next request it serves (issue 68), and
/// sequential requests on a session are served by the same handle: each request still goes out
/// with its own URL, method, fields and body, and nothing of the one before.
@Suite("Handle reuse")
struct HandleReuseTests {
  @Test func eachRequestOnAReusedHandleCarriesOnlyItsOwnOptions() async throws {
    let (server, session) = try HTTPBehaviourTests.fixture()
    func send(_ method: String, _ path: String, field: (String, String)? = nil, body: String? = nil) async throws -> Data {
      var request = URLRequest(url: server.url(path, hostName: "api.test"))
      request.httpMethod = method
      if let field { request.setValue(field.1, forHTTPHeaderField: field.0) }
      request.httpBody = body.map { Data($0.utf8) }
      let (data, response) = try await session.data(for: request)
      #expect(response.statusCode == 200, "\(method) \(path)")
      return data
    }
    // The same options twice (the second sets only its URL), a field added, the field dropped,
    // a HEAD, a body with a method of its own, and plain GETs after each.
    _ = try await send("GET", "/1")
    _ = try await send("GET", "/2")
    _ = try await send("GET", "/3", field: ("X-Only-Three", "3"))
    _ = try await send("GET", "/4")
    #expect(try await send("HEAD", "/5").isEmpty)
    #expect(String(decoding: try await send("GET", "/6"), as: UTF8.self) == "hello")
    _ = try await send("PATCH", "/7", body: "seven")
    _ = try await send("GET", "/8")
    _ = try await send("GET", "/9", field: ("X-Only-Nine", "9"))
    _ = try await send("GET", "/10", field: ("X-Only-Ten", "10"))
    let received = server.requests
    #expect(received.map(\.target) == (1...10).map { "/\($0)" })
    #expect(received.map(\.method) == ["GET", "GET", "GET", "GET", "HEAD", "GET", "PATCH", "GET", "GET", "GET"])
    #expect(received.map { $0.header("X-Only-Three") } == [nil, nil, "3", nil, nil, nil, nil, nil, nil, nil])
    #expect(received.map { $0.header("X-Only-Nine") } == [nil, nil, nil, nil, nil, nil, nil, nil, "9", nil])
    #expect(received.map { $0.header("X-Only-Ten") } == [nil, nil, nil, nil, nil, nil, nil, nil, nil, "10"])
    #expect(received.map { String(decoding: $0.body, as: UTF8.self) } == ["", "", "", "", "", "", "seven", "", "", ""])
  }
}
#endif
