import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("Host names and resolution")
struct HostTests {
  static func configuration(_ includesSubdomains: Bool, _ marker: String) -> CNConfiguration {
    try! CNConfiguration(includesSubdomains: includesSubdomains, [chain((.exact, marker))])
  }

  static let manager = try! CNPinningManager(configuration: [
    "example.com": configuration(true, "example.com"),
    "www.example.com": configuration(true, "www.example.com"),
    "api.example.com": configuration(false, "api.example.com"),
    "exact.example.org": configuration(false, "exact.example.org"),
    "Example.NET.": configuration(true, "example.net"),
    "127.0.0.1": configuration(true, "127.0.0.1"),
    "[2001:DB8::0:1]": configuration(true, "2001:db8::1"),
  ])

  @Test(arguments: [
    // exact matches win whatever includesSubdomains says
    ("example.com", "example.com"),
    ("api.example.com", "api.example.com"),
    ("www.example.com", "www.example.com"),
    ("exact.example.org", "exact.example.org"),
    // the longest includesSubdomains domain on a label boundary
    ("a.example.com", "example.com"),
    ("a.b.c.example.com", "example.com"),
    ("sub.www.example.com", "www.example.com"),
    ("x.sub.www.example.com", "www.example.com"),
    // api.example.com does not include subdomains, so its subdomains fall back to example.com
    ("v1.api.example.com", "example.com"),
    // case-insensitive, one trailing dot ignored
    ("API.Example.COM", "api.example.com"),
    ("api.example.com.", "api.example.com"),
    ("WWW.EXAMPLE.COM.", "www.example.com"),
    ("example.net", "example.net"),
    ("deep.EXAMPLE.net.", "example.net"),
    // IP literals match exactly only
    ("127.0.0.1", "127.0.0.1"),
    ("2001:db8::1", "2001:db8::1"),
    ("[2001:db8:0:0:0:0:0:1]", "2001:db8::1"),
    // an IPv4-mapped IPv6 address is the IPv4 address, however it is written
    ("::ffff:127.0.0.1", "127.0.0.1"),
    ("[::FFFF:7F00:1]", "127.0.0.1"),
    ("0:0:0:0:0:ffff:7f00:0001", "127.0.0.1"),
    ("127.0.0.1.", "127.0.0.1"),
  ])
  func resolvesToTheMostSpecificDomain(_ host: String, _ domain: String) throws {
    let resolved = try #require(Self.manager.configuration(for: host))
    #expect(resolved.domain == domain)
    #expect(resolved.configuration.chains[0].links[0].value == domain)
  }

  @Test(arguments: [
    "evilexample.com",  // not on a label boundary
    "example.com.evil.net",
    "notexample.net",
    "sub.exact.example.org",  // exact.example.org does not include subdomains
    "example.org",
    "com",
    "1.127.0.0.1",  // IP literals have no subdomains
    "127.0.0.2",
    "2001:db8::2",
    "example.com..",  // two trailing dots is not the same host
  ])
  func unpinnedHosts(_ host: String) {
    #expect(Self.manager.configuration(for: host) == nil)
  }

  @Test(
    arguments: [
      ("", "empty host name"),
      (".", "empty host name"),
      ("https://api.example.com", "contains a URL scheme; write the host name only"),
      ("api.example.com/v1", "contains a path; write the host name only"),
      ("api.example.com:443", "contains a port or is not a valid IPv6 address"),
      ("[::1]:443", "contains a port; write the host name only"),
      ("*.example.com", "wildcards are not supported; use includesSubdomains"),
      ("api example.com", "contains whitespace"),
      (" api.example.com", "contains whitespace"),
      ("user@api.example.com", "contains user information; write the host name only"),
      ("a..example.com", #"has an empty label (".." or a leading dot)"#),
      (".example.com", #"has an empty label (".." or a leading dot)"#),
      ("example.com..", #"has an empty label (".." or a leading dot)"#),
      ("-api.example.com", #"has a label that starts or ends with "-""#),
      ("api-.example.com", #"has a label that starts or ends with "-""#),
      ("bücher.example", "contains non-ASCII characters; write an internationalised name in its xn-- (punycode) form"),
      ("api!.example.com", #"contains the character "!""#),
      (String(repeating: "a", count: 64) + ".com", "has a label longer than 63 characters"),
      (Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: "."), "longer than 253 characters"),
      ("1.2.3", "is the IPv4 address 1.2.0.3 written in another form (shortened, octal or hex); write 1.2.0.3"),
      ("256.1.1.1", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
      ("01.2.3.4", "is the IPv4 address 1.2.3.4 written in another form (shortened, octal or hex); write 1.2.3.4"),
      ("example.123", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
      ("[::1", #"has an unbalanced "["; an IPv6 address is written [::1] or ::1"#),
      ("fe80::1%eth0", "IPv6 zone identifiers (%…) are not supported"),
      ("1:2:3:4:5:6:7:8:9", "contains a port or is not a valid IPv6 address"),
      ("[1::2::3]", "is not a valid IPv6 address"),
      ("::127.0.0.1", "is an IPv4-compatible IPv6 address, not in use; write the IPv4 address 127.0.0.1"),
      ("[::7f00:1]", "is an IPv4-compatible IPv6 address, not in use; write the IPv4 address 127.0.0.1"),
      ("::ffff:0:10.0.0.1", "is an IPv4-translated IPv6 address, not in use; write the IPv4 address 10.0.0.1"),
      ("127.1", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
      ("2130706433", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
      // Hosts that end in a number are addresses to libcurl and browsers (WHATWG), never names.
      ("0x7f000001", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
      ("127.0.0.0x1", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
      ("0X7F.0x0.0.1", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
      ("017700000001", "is the IPv4 address 127.0.0.1 written in another form (shortened, octal or hex); write 127.0.0.1"),
      ("10.0x", "is the IPv4 address 10.0.0.0 written in another form (shortened, octal or hex); write 10.0.0.0"),
      ("api.example.0x1", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
      ("api.0x", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
      ("0x100000000", "ends in a numeric label but is not an IPv4 address in dotted-decimal form"),
      // Length is checked before anything else reads the text (a long IPv6 literal once took
      // minutes to refuse).
      ("[" + String(repeating: "0:", count: 200) + "1]", "longer than 253 characters"),
    ] as [(String, String)])
  func invalidHostNamesAreConfigurationErrors(_ host: String, _ reason: String) {
    let configuration = Self.configuration(false, "x")
    #expect(
      throws: CNConfigurationError(problems: [.init(#"configuration[\#(quoted(host))]"#, .invalidHost(host, reason: reason))])
    ) {
      try CNPinningManager(configuration: [host: configuration])
    }
  }

  @Test func invalidHostsInFilesNameTheEntry() {
    let json =
      #"{"PinnedDomains": {"https://api.example.com": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}]]}}}"#
    #expect(
      problems(json: json) == [
        .init(
          #"PinnedDomains["https://api.example.com"]"#,
          .invalidHost("https://api.example.com", reason: "contains a URL scheme; write the host name only"))
      ])
  }

  @Test(arguments: [
    ("API.example.com", "api.example.com"),
    ("example.com.", "example.com"),
    ("[::1]", "::1"),
    ("0:0::1", "::1"),
    ("::ffff:10.0.0.1", "10.0.0.1"),
  ])
  func hostsThatNormaliseAlikeAreDuplicates(_ first: String, _ second: String) {
    let keys = [first, second].sorted()
    let json =
      #"{"PinnedDomains": {"\#(first)": {"includesSubdomains": false, "chainSet": [[{"value": "A"}]]}, "\#(second)": {"includesSubdomains": true, "chainSet": [[{"value": "B"}]]}}}"#
    #expect(problems(json: json) == [.init(#"PinnedDomains[\#(quoted(keys[1]))]"#, .duplicateHost(keys[1], sameAs: keys[0]))])
  }

  @Test func emptyConfigurationInCodeIsRejected() {
    #expect(throws: CNConfigurationError(problems: [.init("configuration", .noPinnedDomains)])) {
      try CNPinningManager(configuration: [:])
    }
  }

  @Test func resolutionTreatsUnparseableHostsAsUnpinnedButEvaluationRejectsThem() throws {
    #expect(Self.manager.configuration(for: "https://example.com") == nil)
    let failure = try #require(
      Self.manager.evaluate(host: "https://example.com", chain: []).rejection, "an invalid host must not be treated as unpinned")
    #expect(failure.reason == .invalidHost("contains a URL scheme; write the host name only"))
  }

  private func quoted(_ text: String) -> String { "\"" + text + "\"" }
}

/// A host one typo away from a pinned domain is named (issue 28, item 7: `api.locla` in the
/// configuration let requests to `api.local` through unpinned with no hint).
@Suite struct NearMissTests {
  static let chain = try! CNChain([CNChainLink(.exact, "Root"), CNChainLink(.suffix, ".local")])

  @Test func theNearestPinnedDomainIsNamedOncePerHost() throws {
    let manager = try CNPinningManager(configuration: [
      "api.locla": CNConfiguration([Self.chain]), "login.example.com": CNConfiguration([Self.chain]),
    ])
    #expect(manager.nearestPinnedDomain(to: "api.local") == "api.locla")
    #expect(manager.nearestPinnedDomain(to: "API.LOCAL") == "api.locla")
    #expect(manager.nearestPinnedDomain(to: "logon.example.com") == "login.example.com")
    #expect(manager.nearestPinnedDomain(to: "api.locla") == nil, "a pinned host is no near miss")
    #expect(manager.nearestPinnedDomain(to: "cdn.example.org") == nil)
    let reporter = CNPinningReporter()
    let warning = try #require(reporter.nearMissWarning(for: "api.local", pins: manager))
    #expect(warning == "api.local is not pinned, but the configuration pins api.locla: a typo in the configuration or the URL?")
    #expect(reporter.nearMissWarning(for: "api.local", pins: manager) == nil, "once per host")
    #expect(reporter.nearMissWarning(for: "cdn.example.org", pins: manager) == nil)
    #expect(CNPinningReporter().nearMissWarning(for: "api.local", pins: manager) != nil, "once per reporter")
  }
}
