// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
@testable import CNPinningSession
@testable import CNPinningSessionCore
@testable import CNPinningSessionLinux
import CNPinningTestKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every spelling of a host is one host: the pins, the exceptions, the unpinned-host rule, TLS
/// and the connection all see the canonical form `RequestTarget` makes, once.
@Suite("Host spellings")
struct HostSpellingTests {
  @Test(arguments: [
    ("https://API.Test/v1?x=1", "api.test", "https://api.test/v1?x=1"),
    ("https://api.test./", "api.test", "https://api.test/"),
    ("https://%61pi.test/", "api.test", "https://api.test/"),
    ("https://127.0.0.1:8443/", "127.0.0.1", "https://127.0.0.1:8443/"),
    ("https://127.0.0.1./", "127.0.0.1", "https://127.0.0.1/"),
    ("https://[::ffff:127.0.0.1]:8443/p?q", "127.0.0.1", "https://127.0.0.1:8443/p?q"),
    ("https://[::FFFF:7F00:1]/", "127.0.0.1", "https://127.0.0.1/"),
    ("https://[0:0:0:0:0:ffff:7f00:0001]/", "127.0.0.1", "https://127.0.0.1/"),
    ("https://[0:0::1]/", "::1", "https://[::1]/"),
    ("https://[2001:DB8:0:0:0:0:0:1]/", "2001:db8::1", "https://[2001:db8::1]/"),
    ("http://example.test:8080/a", "example.test", "http://example.test:8080/a"),
  ])
  func spellingsBecomeOneCanonicalHost(_ url: String, _ host: String, _ connection: String) throws {
    let target = try RequestTarget(URL(string: url))
    #expect(target.host == host)
    #expect(target.connectionURL.absoluteString == connection)
    #expect(target.url.absoluteString == url, "responses report the URL as written")
  }

  @Test(arguments: [
    ("https://127.1/", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
    ("https://2130706433/", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
    ("https://0x7f.0.0.1/", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
    ("https://0177.0.0.1/", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
    ("https://[::127.0.0.1]/", "is an IPv4-compatible IPv6 address, not in use; write the IPv4 address 127.0.0.1"),
    ("https://[::ffff:0:127.0.0.1]/", "is an IPv4-translated IPv6 address, not in use; write the IPv4 address 127.0.0.1"),
  ])
  func spellingsThatNameNoHostAreRefused(_ url: String, _ reason: String) throws {
    #expect(throws: CNPinnedSessionError.self) { try RequestTarget(URL(string: url)) }
    do {
      _ = try RequestTarget(URL(string: url))
    } catch {
      #expect(error.details(.invalidHost)?.reason == reason, "\(error)")
    }
  }

  @Test(arguments: ["ftp://api.test/", "https:///path", "mailto:someone@api.test", "https://api.test:0/"])
  func urlsThatAreNotHTTPAreRefused(_ url: String) {
    #expect(throws: CNPinnedSessionError.invalidURL(url)) { try RequestTarget(URL(string: url)) }
  }

  /// An interceptor whose certificate names the IPv4-mapped form of a pinned IPv4 address: the
  /// mapped URL reaches the same server, so it gets the address's pins (it was once looked up
  /// as another, unpinned, host and accepted).
  @Test func anIPv4MappedAddressHasTheIPv4AddressesPins() async throws {
    let pki = try TestPKI(ipAddresses: ["127.0.0.1", "::ffff:127.0.0.1"])
    let server = try LocalTLSServer.start(.init(identity: pki.leaf))
    let mapped = URL(string: "https://[::ffff:127.0.0.1]:\(server.port)/")!
    let trust = CNPinnedSessionConfiguration.default.trusting(.customAnchors([pki.root.certificate]), unpinnedHosts: .allow)
    let otherPins = try pins("127.0.0.1", [(.exact, "Another Root"), (.prefixWithNumber, "R"), (.exact, "api.test")])
    let refusing = try CNPinnedSession(manager: otherPins, configuration: trust)
    await expectPinMismatch { _ = try await refusing.data(from: server.baseURL) }
    await expectPinMismatch { _ = try await refusing.data(from: mapped) }
    #expect(server.requests.isEmpty)

    let accepting = try CNPinnedSession(manager: try matchingPins("127.0.0.1"), configuration: trust)
    let events = Locked<[CNConnectionEvent]>([])
    accepting.setConnectionObserver { event in events.withLock { $0.append(event) } }
    let (body, response) = try await accepting.data(from: mapped)
    #expect(String(body) == "hello" && response.url == mapped)
    #expect(events.withLock { $0.map(\.host) } == ["127.0.0.1"])
  }
}
#endif
