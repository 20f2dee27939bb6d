// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pins written root → leaf for one host.
func pins(_ host: String, includesSubdomains: Bool = false, _ links: [(CNChainLink.LinkType, String)]...) throws
  -> CNPinningManager
{
  try CNPinningManager(configuration: [
    host: CNConfiguration(
      includesSubdomains: includesSubdomains, links.map { try CNChain($0.map { try CNChainLink($0.0, $0.1) }) })
  ])
}

/// Pins that the default TestPKI satisfies.
func matchingPins(_ host: String = "api.test") throws -> CNPinningManager {
  try pins(host, [(.prefixWithNumber, "Test Root X"), (.prefixWithNumber, "R"), (.exact, "api.test")])
}

/// A configuration that sends `api.test` (and other names) to the server's loopback address.
func resolving(_ names: [String] = ["api.test"], to server: LocalTLSServer, timeout: TimeInterval = 10)
  -> CNPinnedSessionConfiguration
{
  var configuration = CNPinnedSessionConfiguration()
  configuration.resolve = names.map {
    CNHostOverride(host: $0, port: server.port, address: server.configuration.address == .ipv4Loopback ? "127.0.0.1" : "::1")
  }
  configuration.timeoutIntervalForRequest = timeout
  return configuration
}

/// A server whose chain comes from a rogue CA that the session also trusts, and a session with
/// the pins `matchingPins()` gives: every request to it must fail the pins, before any byte.
func rogueServerAndPinnedSession() throws -> (LocalTLSServer, CNPinnedSession) {
  let pki = try TestPKI()
  let rogue = try TestPKI(root: "Rogue Root CA", intermediate: "Rogue Issuing CA 1")
  let server = try LocalTLSServer.start(.init(identity: rogue.leaf))
  let session = try CNPinnedSession(
    manager: try matchingPins(),
    configuration: resolving(to: server).trusting(.customAnchors([pki.root.certificate, rogue.root.certificate])))
  return (server, session)
}

/// Whether a body is the one expected. Compared outside `#expect`, whose failure message for
/// `==` on two large `Data` values computes a difference for many minutes.
func identical(_ body: Data?, _ expected: Data) -> Bool { body == expected }

/// The error a request threw, or a recorded issue when it succeeded.
func error(of body: () async throws -> Void) async -> CNPinnedSessionError? {
  await thrown(CNPinnedSessionError.self, by: body)
}

/// The `E` a request threw, or a recorded issue when it succeeded or threw something else.
func thrown<E: Error>(_: E.Type, by body: () async throws -> Void) async -> E? {
  do {
    try await body()
    Issue.record("the request succeeded where it should have failed")
    return nil
  } catch let error as E {
    return error
  } catch {
    Issue.record("unexpected error type \(type(of: error)): \(error)")
    return nil
  }
}

/// Pins for `api.test` that the default TestPKI does not satisfy (another root).
func otherRootPins() throws -> CNPinningManager {
  try pins("api.test", [(.exact, "Another Root"), (.prefixWithNumber, "R"), (.exact, "api.test")])
}

/// Runs a request that must fail with a pin mismatch; records an issue (and returns nil) otherwise.
@discardableResult
func expectPinMismatch(_ body: () async throws -> Void) async -> CNPinningFailure? {
  let failure = await error(of: body)
  let details = failure?.pinFailure
  #expect(details != nil, "expected a pin mismatch, got \(String(describing: failure))")
  return details
}

/// Servers, proxies and sessions a test is done with, stopped and released off the shared
/// threads (each stop waits for its threads or its process).
// Unchecked Sendable: the objects are set in init and released once, by the test that owns the value.
final class Leftovers: @unchecked Sendable {
  private var objects: [AnyObject]
  init(_ objects: AnyObject?...) { self.objects = objects.compactMap { $0 } }

  func release() async {
    await offTheSharedThreads {
      for object in objects {
        (object as? LocalTLSServer)?.stop()
        (object as? TestProxy)?.stop()
        (object as? MisbehavingProxy)?.stop()
      }
      objects.removeAll()
    }
  }
}

extension String {
  init(_ data: Data) { self.init(decoding: data, as: UTF8.self) }
}

extension CNPinnedSessionError {
  /// Host and reason when the error has `code`, for `#require`.
  func details(_ code: Code) -> (host: String, reason: String)? {
    guard self.code == code, let host, let reason else { return nil }
    return (host, reason)
  }

  /// The reason when the error has `code` (an argument refused, a request not supported), for
  /// `#require`.
  func reason(ifCode code: Code) -> String? { self.code == code ? reason : nil }

  /// The proxy an untrusted-proxy error names, for `#require`.
  var untrustedProxyName: String? { code == .untrustedProxy ? proxy : nil }

  /// The pins' verdict, when the request was refused by them.
  var pinFailure: CNPinningFailure? { pinningFailure }
}

extension CNPinnedSessionConfiguration {
  /// This configuration with `trust` (and an unpinned-host rule).
  func trusting(_ trust: CNTrust, unpinnedHosts: CNUnpinnedHostPolicy = .allow) -> Self {
    var configuration = self
    configuration.trust = trust
    configuration.unpinnedHosts = unpinnedHosts
    return configuration
  }
}
#endif

extension Data {
  /// `count` bytes, the byte at offset i being i × `multiplier` (mod 256): a pattern of 256
  /// bytes, repeated by doubling (a 24 MiB map cost a debug build 4 s of CPU a run).
  static func pattern(_ count: Int, multiplier: Int) -> Data {
    var data = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* multiplier) })
    while data.count < count { data.append(data.prefix(count - data.count)) }
    data.count = count
    return data
  }
}
