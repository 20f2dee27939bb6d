// The transport run against the real swift-openapi-runtime and swift-http-types, on loopback:
// `swift test` in CNPinningOpenAPI where the packages can be fetched, or
// `scripts/openapi-check.sh --real RUNTIME_CLONE HTTP_TYPES_CLONE` with local clones. CI, which
// cannot fetch them, type-checks this file against their recorded interfaces.
import CNPinning
import CNPinningOpenAPI
import CNPinningSession
import CNPinningTestKit
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("Pinned OpenAPI transport")
struct PinnedTransportTests {
  /// Pins that TestPKI's chain satisfies, for api.test, which the session sends to `server`.
  static func session(for server: LocalTLSServer, anchors: [CNCertificate]) throws -> CNPinnedSession {
    let chain = try CNChain([
      try CNChainLink(.prefixWithNumber, "Test Root X"), try CNChainLink(.prefixWithNumber, "R"),
      try CNChainLink(.exact, "api.test"),
    ])
    let pins = try CNPinningManager(configuration: ["api.test": try CNConfiguration(includesSubdomains: false, [chain])])
    var configuration = CNPinnedSessionConfiguration()
    configuration.resolve = [CNHostOverride(host: "api.test", port: server.port, address: "127.0.0.1")]
    configuration.trust = .customAnchors(anchors)
    return try CNPinnedSession(manager: pins, configuration: configuration)
  }

  static func collect(_ body: HTTPBody?) async throws -> [UInt8] {
    guard let body else { return [] }
    var bytes: [UInt8] = []
    for try await chunk in body { bytes += chunk }
    return bytes
  }

  /// A request with a body of known length (`HTTPBody.Length.known(Int64)`) goes out with that
  /// length, and the response's body comes back with the length the session framed it by.
  @Test func aPinnedRequestAndItsBodyGoThroughWithTheirLengths() async throws {
    let pki = try TestPKI()
    let server = try LocalTLSServer.start(
      .init(identity: pki.leaf, handler: { request in .text("\(request.method) \(request.target) \(request.body.count)") }))
    defer { server.stop() }
    let transport = CNPinnedTransport(session: try Self.session(for: server, anchors: [pki.root.certificate]))
    let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/greet?x=1")
    let (response, body) = try await transport.send(
      request, body: HTTPBody([UInt8](repeating: 7, count: 1000)), baseURL: server.url("/v1", hostName: "api.test"),
      operationID: "greet")
    #expect(response.status == .ok)
    #expect(body?.length == .known(23))
    #expect(String(decoding: try await Self.collect(body), as: UTF8.self) == "POST /v1/greet?x=1 1000")
    #expect(server.requests.first?.header("Content-Length") == "1000")
  }

  /// A server outside the pins is refused before the request is sent; the session's error comes
  /// through, found by `pinnedSessionError`.
  @Test func aServerOutsideThePinsIsRefused() async throws {
    let pki = try TestPKI()
    let rogue = try TestPKI(root: "Rogue Root CA", intermediate: "Rogue Issuing CA 1")
    let server = try LocalTLSServer.start(.init(identity: rogue.leaf))
    defer { server.stop() }
    let transport = CNPinnedTransport(
      session: try Self.session(for: server, anchors: [pki.root.certificate, rogue.root.certificate]))
    await #expect {
      _ = try await transport.send(
        HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/"), body: nil,
        baseURL: server.url("", hostName: "api.test"), operationID: "get")
    } throws: { error in
      error.pinnedSessionError?.code == .pinMismatch
    }
    #expect(server.requests.isEmpty)
  }
}
