// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
@testable import CNPinningSession
@testable import CNPinningCurl
import CCurl
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
    ("https://127.1/", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
    ("https://2130706433/", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
    ("https://0x7f.0.0.1/", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
    ("https://0177.0.0.1/", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
    ("https://0x7f000001/", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
    ("https://127.0.0.0x1/", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
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

  /// What libcurl's URL parser (the one that decides where a connection goes) makes of a host,
  /// or nil when it refuses the URL.
  static func libcurlHost(_ host: String) -> String? {
    guard let handle = curl_url() else { return nil }
    defer { curl_url_cleanup(handle) }
    guard curl_url_set(handle, CURLUPART_URL, "https://\(host)/", 0) == CURLUE_OK else { return nil }
    var part: UnsafeMutablePointer<CChar>?
    guard curl_url_get(handle, CURLUPART_HOST, &part, 0) == CURLUE_OK, let part else { return nil }
    defer { curl_free(part) }
    return String(cString: part)
  }

  /// Hosts that end in a number, and a few that only look like it, against libcurl's own parse:
  /// whatever libcurl would connect to as an IPv4 address is either that address written
  /// canonically (and taken as it) or refused with the address to write; never a name to the
  /// package while an address to libcurl (`https://0x7f000001/` reached 127.0.0.1 under the pins
  /// of a host named "0x7f000001").
  @Test(arguments: [
    "127.0.0.1", "0x7f000001", "0X7F000001", "127.0.0.0x1", "127.0.0.01", "0177.0.0.1", "0x7f.0.0.1", "0x7f.1",
    "127.1", "127.0.1", "2130706433", "017700000001", "0x7F.0X0.0.0X1", "10.0x", "0", "0x", "1.2.3.4.", "api.test",
    "api.0x1", "api.0x", "0x1g.test", "x0.1", "1.2.3.4.5", "256.0.0.1", "0x100000000", "4294967296", "00000000000000000127.0.0.1",
    "0x00000000000000007f.1",
  ])
  func aHostThatLibcurlReadsAsAnAddressIsNeverAName(_ spelling: String) throws {
    let curl = Self.libcurlHost(spelling)
    let ours = HostName.parse(spelling)
    let curlAddress = curl.flatMap { text -> String? in
      guard case .success(let name) = HostName.parse(text), name.isIPAddress else { return nil }
      return name.normalized
    }
    switch (ours, curlAddress) {
    case (.success(let name), let address?):
      #expect(
        name.isIPAddress && name.normalized == address, "libcurl connects to \(address); the package reads \(name.normalized)")
    case (.failure(let invalid), let address?):
      #expect(invalid.reason.hasSuffix("write \(address)"), "libcurl reads \(address): \(invalid.reason)")
    case (.success(let name), nil):
      #expect(!name.isIPAddress && curl?.lowercased() == name.normalized, "libcurl reads \(String(describing: curl))")
    case (.failure, nil):
      break  // refused by both, or a name to libcurl that the package refuses: fails closed
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
