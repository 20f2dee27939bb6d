// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// `cnpin convert FILE --from trustkit|nspinneddomains|nsc|okhttp` (issue 69, item 1). The files
/// below are written in each consumer's own names, as `ExportConsumerTests` records them from
/// their sources; the round trips are compared by those consumers' readers ported there, and by
/// `lint --against`. OkHttp checks the union of the pins of every pattern a host matches, and
/// `**.host` matches the host itself (square/okhttp, commit 1682d9bac8c03dffde2969b0b74d47649d0dbb52,
/// `okhttp/src/commonJvmAndroid/kotlin/okhttp3/CertificatePinner.kt`, `findMatchingPins` and
/// `matchesHostname`, Apache-2.0).
@Suite("Imports from other pinning libraries")
struct ImportTests {
  /// A key: base64 of 32 bytes of `byte`.
  static func key(_ byte: UInt8) -> String { Data(repeating: byte, count: 32).base64EncodedString() }

  static func plist(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>

    """
  }

  static func trustKitDomain(
    _ name: String, keys: [UInt8], subdomains: Bool = false, enforce: Bool = true, expiration: String? = nil,
    reportURIs: [String] = [], extra: String = ""
  ) -> String {
    """
        <key>\(name)</key>
        <dict>
          <key>TSKIncludeSubdomains</key><\(subdomains)/>
          <key>TSKEnforcePinning</key><\(enforce)/>
          <key>TSKPublicKeyHashes</key>
          <array>\(keys.map { "<string>\(key($0))</string>" }.joined())</array>
          <key>TSKDisableDefaultReportUri</key><true/>
    \(expiration.map { "      <key>TSKExpirationDate</key><string>\($0)</string>" } ?? "")
    \(reportURIs.isEmpty ? "" : "      <key>TSKReportUris</key><array>\(reportURIs.map { "<string>\($0)</string>" }.joined())</array>")
    \(extra)
        </dict>
    """
  }

  /// TrustKit's dictionary under `TSKConfiguration` in an Info.plist.
  static func trustKit(_ domains: String) -> String {
    plist(
      """
      <dict>
        <key>TSKConfiguration</key>
        <dict>
          <key>TSKSwizzleNetworkDelegates</key><false/>
          <key>TSKIgnorePinningForUserDefinedTrustAnchors</key><false/>
          <key>TSKPinnedDomains</key>
          <dict>
      \(domains)
          </dict>
        </dict>
      </dict>
      """)
  }

  static let trustKitFile = trustKit(
    trustKitDomain(
      "api.example.com", keys: [1, 2], subdomains: true, enforce: false, expiration: "2027-06-30",
      reportURIs: ["https://reports.example.com/pins"])
      + trustKitDomain("cdn.example.net", keys: [3, 4, 5]))

  static let nsPinnedDomainsFile = plist(
    """
    <dict>
      <key>NSAppTransportSecurity</key>
      <dict>
        <key>NSPinnedDomains</key>
        <dict>
          <key>api.example.com</key>
          <dict>
            <key>NSIncludesSubdomains</key><true/>
            <key>NSPinnedCAIdentities</key>
            <array><dict><key>SPKI-SHA256-BASE64</key><string>\(key(1))</string></dict><dict><key>SPKI-SHA256-BASE64</key><string>\(key(2))</string></dict></array>
            <key>NSPinnedLeafIdentities</key>
            <array><dict><key>SPKI-SHA256-BASE64</key><string>\(key(3))</string></dict></array>
          </dict>
          <key>leaf.example.net</key>
          <dict>
            <key>NSPinnedLeafIdentities</key>
            <array><dict><key>SPKI-SHA256-BASE64</key><string>\(key(4))</string></dict><dict><key>SPKI-SHA256-BASE64</key><string>\(key(5))</string></dict></array>
          </dict>
        </dict>
      </dict>
    </dict>
    """)

  static let networkSecurityConfigFile = """
    <?xml version="1.0" encoding="utf-8"?>
    <network-security-config>
      <domain-config>
        <domain includeSubdomains="true">example.com</domain>
        <pin-set expiration="2027-01-31">
          <pin digest="SHA-256">\(key(1))</pin>
          <pin digest="SHA-256">\(key(2))</pin>
        </pin-set>
        <domain-config>
          <domain>inner.example.com</domain>
        </domain-config>
      </domain-config>
      <domain-config>
        <domain>api.example.net</domain>
        <pin-set>
          <pin digest="SHA-256">\(key(3))</pin>
          <pin digest="SHA-256">\(key(4))</pin>
        </pin-set>
      </domain-config>
    </network-security-config>

    """

  static func okHttp(_ calls: String) -> String {
    """
    import okhttp3.CertificatePinner

    val certificatePinner = CertificatePinner.Builder()
    \(calls)
      .build()

    """
  }

  static let okHttpFile = okHttp(
    """
      .add("**.example.org", "sha256/\(key(1))", "sha256/\(key(2))")
      .add("api.example.net", "sha256/\(key(3))", "sha256/\(key(4))")
    """)

  static let files: [String: (name: String, text: String, reader: String?)] = [
    "trustkit": ("Info.plist", trustKitFile, ExportConsumerTests.trustKitReader),
    "nspinneddomains": ("Info.plist", nsPinnedDomainsFile, ExportConsumerTests.nsPinnedDomainsReader),
    "nsc": ("network_security_config.xml", networkSecurityConfigFile, ExportConsumerTests.networkSecurityConfigReader),
    "okhttp": ("Pins.kt", okHttpFile, nil),
  ]

  /// Imports `text` (named `name`) from `format` into `pins.json` in `directory`.
  static func importing(_ text: String, named name: String, from format: String, in directory: TemporaryDirectory) async throws
    -> (run: Run, source: String, output: String)
  {
    let source = try directory.file(name, text)
    let output = directory.url.appendingPathComponent("pins.json").path
    return (try await cnpin(["convert", source, "--from", format, "-o", output]), source, output)
  }

  @Test(arguments: ["trustkit", "nspinneddomains", "nsc", "okhttp"])
  func aRoundTripGivesTheSamePins(_ format: String) async throws {
    let directory = try TemporaryDirectory()
    let file = try #require(Self.files[format])
    let (imported, source, output) = try await Self.importing(file.text, named: file.name, from: format, in: directory)
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(!imported.stderr.contains("not carried"), "\(imported.stderr)")
    #expect(imported.stderr.contains("cnpin pins HOST --add-to \(output) adds a host's CN chain"), "\(imported.stderr)")
    // The configuration loads, and exported again it is the file it came from.
    let back = directory.url.appendingPathComponent("back.\(format)").path
    let exported = try await cnpin(["convert", output, "--to", format, "--trust", "none", "-o", back])
    #expect(exported.status == 0, "\(exported.stderr)")
    let drift = try await cnpin(["lint", output, "--against", source, "--trust", "none"])
    #expect(drift.status == 0, "\(drift.stdout)\(drift.stderr)")
    if let reader = file.reader {
      let before = try await ExportConsumerTests.read(reader, source)
      let after = try await ExportConsumerTests.read(reader, back)
      #expect(
        NSDictionary(dictionary: before["domains"] as? [String: Any] ?? [:])
          == NSDictionary(dictionary: after["domains"] as? [String: Any] ?? [:]), "\(before)\n\(after)")
      #expect((before["domains"] as? [String: Any])?.count ?? 0 >= 2, "\(before)")
    }
  }

  /// What each format's keys become: their scope, and TrustKit's expiry, report-only and report URI.
  @Test func theKeysKeepTheirScopeAndTheHostsItsRules() async throws {
    let directory = try TemporaryDirectory()
    let (trustKit, _, trustKitOutput) = try await Self.importing(
      Self.trustKitFile, named: "Info.plist", from: "trustkit", in: directory)
    #expect(trustKit.status == 0, "\(trustKit.stderr)")
    let host = try Self.host("api.example.com", in: trustKitOutput)
    #expect(host["includesSubdomains"] as? Bool == true)
    #expect(host["enforce"] as? Bool == false)
    #expect(host["expirationDate"] as? String == "2027-06-30T00:00:00Z")
    #expect(host["reportURI"] as? String == "https://reports.example.com/pins")
    #expect(Self.pins(host) == [Self.key(1): "any", Self.key(2): "any"])

    let (ats, _, atsOutput) = try await Self.importing(
      Self.nsPinnedDomainsFile, named: "Info.plist", from: "nspinneddomains", in: directory)
    #expect(ats.status == 0, "\(ats.stderr)")
    #expect(
      try Self.pins(Self.host("api.example.com", in: atsOutput)) == [Self.key(1): "ca", Self.key(2): "ca", Self.key(3): "leaf"])
    #expect(try Self.pins(Self.host("leaf.example.net", in: atsOutput)) == [Self.key(4): "leaf", Self.key(5): "leaf"])
  }

  @Test func whatCannotBeCarriedIsNamedWithItsLineAndTheRestIsWritten() async throws {
    let directory = try TemporaryDirectory()
    let file = Self.trustKit(
      Self.trustKitDomain(
        "api.example.com", keys: [1, 2], expiration: "2027-13-01",
        reportURIs: ["https://reports.example.com/pins", "https://second.example.com/pins"])
        + Self.trustKitDomain("single.example.com", keys: [3])
        + Self.trustKitDomain("http.example.com", keys: [4, 5], reportURIs: ["http://reports.example.com/pins"])
        + Self.trustKitDomain("old.example.com", keys: [6, 7], extra: "<key>TSKPublicKeyAlgorithms</key><array/>"))
    let (imported, _, output) = try await Self.importing(file, named: "Info.plist", from: "trustkit", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    let lines = file.split(separator: "\n", omittingEmptySubsequences: false)
    func line(_ host: String) -> Int { (lines.firstIndex { $0.contains("<key>\(host)</key>") } ?? -1) + 1 }
    for expected in [
      "line \(line("api.example.com")): api.example.com: expiry 2027-13-01 is no YYYY-MM-DD date",
      "line \(line("api.example.com")): api.example.com: report URI https://second.example.com/pins is a second",
      "line \(line("single.example.com")): single.example.com: only one hash pin",
      "line \(line("http.example.com")): http.example.com: report URI http://reports.example.com/pins is not an https URL",
      "old.example.com: TrustKit key TSKPublicKeyAlgorithms, which cnpin does not write",
      "5 part(s) of",
    ] {
      #expect(imported.stderr.contains(expected), "\(expected)\n\(imported.stderr)")
    }
    let hosts = try Self.hosts(in: output)
    #expect(Set(hosts.keys) == ["api.example.com", "http.example.com", "old.example.com"])
    #expect(hosts["api.example.com"]?["expirationDate"] == nil)
    #expect(hosts["api.example.com"]?["reportURI"] as? String == "https://reports.example.com/pins")
    #expect(hosts["http.example.com"]?["reportURI"] == nil)
  }

  /// A value of the wrong type is named (TrustKit would raise or misread it), never read as
  /// absent without a word.
  @Test func valuesOfTheWrongTypeAreNamed() async throws {
    let directory = try TemporaryDirectory()
    let trustKit = Self.trustKit(
      """
          <key>api.example.com</key>
          <dict>
            <key>TSKPublicKeyHashes</key><array><string>\(Self.key(1))</string><integer>2</integer></array>
            <key>TSKIncludeSubdomains</key><string>YES</string>
            <key>TSKEnforcePinning</key><integer>0</integer>
            <key>TSKExpirationDate</key><date>2027-01-01T00:00:00Z</date>
            <key>TSKDisableDefaultReportUri</key><true/>
          </dict>
          <key>cdn.example.com</key>
          <string>not a policy</string>
      """)
    let (imported, _, _) = try await Self.importing(trustKit, named: "Info.plist", from: "trustkit", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    for expected in [
      "api.example.com: TSKPublicKeyHashes is not an array of strings", "api.example.com: TSKIncludeSubdomains is not a boolean",
      "api.example.com: TSKEnforcePinning is not a boolean", "api.example.com: TSKExpirationDate is not a string",
      "cdn.example.com: the domain's policy is not a dictionary",
    ] {
      #expect(imported.stderr.contains(expected), "\(expected)\n\(imported.stderr)")
    }
    let ats = Self.nsPinnedDomainsFile.replacingOccurrences(
      of: "<dict><key>SPKI-SHA256-BASE64</key><string>\(Self.key(3))</string></dict>", with: "<string>\(Self.key(3))</string>")
    let (atsImported, _, atsOutput) = try await Self.importing(ats, named: "Info.plist", from: "nspinneddomains", in: directory)
    #expect(atsImported.status == 1, "\(atsImported.stderr)")
    #expect(
      atsImported.stderr.contains("api.example.com: NSPinnedLeafIdentities holds an identity that is not a dictionary"),
      "\(atsImported.stderr)")
    // A host whose entry was not read whole is left out (without its leaf identity it would
    // accept chains ATS refuses); the other host is carried.
    #expect(Set(try Self.hosts(in: atsOutput).keys) == ["leaf.example.net"])
  }

  /// A key that is not a SHA-256 digest leaves its host out: without its only leaf identity the
  /// host would accept chains ATS refuses.
  @Test func aHostWithAnUnreadableKeyIsLeftOut() async throws {
    let directory = try TemporaryDirectory()
    let ats = Self.nsPinnedDomainsFile.replacingOccurrences(
      of: "<string>\(Self.key(3))</string>", with: "<string>bm90IDMyIGJ5dGVz</string>")
    let (imported, _, output) = try await Self.importing(ats, named: "Info.plist", from: "nspinneddomains", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    #expect(
      imported.stderr.contains("api.example.com: key bm90IDMyIGJ5dGVz decodes to 12 bytes; a SHA-256 digest has 32: left out"),
      "\(imported.stderr)")
    #expect(Set(try Self.hosts(in: output).keys) == ["leaf.example.net"])
  }

  /// A host named twice (two keys differing in case; a domain in two configs, which Android
  /// refuses) is not read as whichever came last: it is named and left out.
  @Test func aHostNamedTwiceIsNamedAndLeftOut() async throws {
    let directory = try TemporaryDirectory()
    let trustKit = Self.trustKit(
      Self.trustKitDomain("api.example.com", keys: [1, 2]) + Self.trustKitDomain("API.example.com", keys: [3, 4])
        + Self.trustKitDomain("cdn.example.com", keys: [5, 6]))
    let (imported, _, output) = try await Self.importing(trustKit, named: "Info.plist", from: "trustkit", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    #expect(imported.stderr.contains("api.example.com is pinned a second time"), "\(imported.stderr)")
    #expect(Set(try Self.hosts(in: output).keys) == ["cdn.example.com"])
    let nsc = Self.networkSecurityConfigFile.replacingOccurrences(
      of: "<domain>api.example.net</domain>", with: "<domain>api.example.net</domain>\n    <domain>inner.example.com</domain>")
    let (android, _, androidOutput) = try await Self.importing(nsc, named: "nsc.xml", from: "nsc", in: directory)
    #expect(android.status == 1, "\(android.stderr)")
    #expect(android.stderr.contains("line 15: inner.example.com is pinned a second time"), "\(android.stderr)")
    #expect(Set(try Self.hosts(in: androidOutput).keys) == ["example.com", "api.example.net"])
  }

  /// Android takes the most specific domain-config: a domain with no pins under one that pins its
  /// subdomains is unpinned there, and CNPinning would pin it by the parent's entry.
  @Test func anUnpinnedDomainUnderAPinnedOneIsNotCarried() async throws {
    let directory = try TemporaryDirectory()
    let file = Self.networkSecurityConfigFile.replacingOccurrences(
      of: "</network-security-config>",
      with: """
          <domain-config>
            <domain>free.example.com</domain>
          </domain-config>
          <domain-config>
            <domain>free.example.org</domain>
          </domain-config>
        </network-security-config>
        """)
    let (imported, _, output) = try await Self.importing(file, named: "nsc.xml", from: "nsc", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    #expect(
      imported.stderr.contains("not carried: line 21: free.example.com: has no pins, under example.com"), "\(imported.stderr)")
    #expect(imported.stderr.contains("note: line 24: free.example.org: has no pins: left out"), "\(imported.stderr)")
    #expect(imported.stderr.contains("1 part(s) of"), "\(imported.stderr)")
    #expect(Set(try Self.hosts(in: output).keys) == ["example.com", "inner.example.com", "api.example.net"])
  }

  /// A parent pinned by leaf identities alone still pins its subdomains.
  @Test func anUnpinnedDomainUnderALeafPinnedOneIsNotCarried() async throws {
    let directory = try TemporaryDirectory()
    let leafKey5 = "<dict><key>SPKI-SHA256-BASE64</key><string>\(Self.key(5))</string></dict></array>"
    let ats = Self.nsPinnedDomainsFile.replacingOccurrences(
      of: "<key>leaf.example.net</key>", with: "<key>free.leaf.example.net</key><dict/><key>leaf.example.net</key>"
    ).replacingOccurrences(of: leafKey5, with: leafKey5 + "<key>NSIncludesSubdomains</key><true/>")
    let (imported, _, output) = try await Self.importing(ats, named: "Info.plist", from: "nspinneddomains", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    #expect(
      imported.stderr.contains("free.leaf.example.net: has no pins, under leaf.example.net which pins its subdomains"),
      "\(imported.stderr)")
    #expect(Set(try Self.hosts(in: output).keys) == ["api.example.com", "leaf.example.net"])
  }

  /// OkHttp checks a host against the union of every pattern it matches.
  @Test func anOkHttpHostTakesTheKeysOfEachPatternAboveIt() async throws {
    let directory = try TemporaryDirectory()
    let file = Self.okHttp(
      """
        .add("**.example.org", "sha256/\(Self.key(1))", "sha256/\(Self.key(2))")
        .add("api.example.org", "sha256/\(Self.key(3))")
        .add("example.net", "sha256/\(Self.key(4))")
        .add("**.example.net", "sha256/\(Self.key(4))", "sha256/\(Self.key(5))")
        .add("example.info", "sha256/\(Self.key(6))", "sha256/\(Self.key(8))")
        .add("**.example.info", "sha256/\(Self.key(7))", "sha256/\(Self.key(8))")
        .add("api.example.info", "sha256/\(Self.key(9))", "sha256/\(Self.key(10))")
      """)
    let (imported, _, output) = try await Self.importing(file, named: "Pins.kt", from: "okhttp", in: directory)
    #expect(imported.status == 1, "\(imported.stderr)")
    let hosts = try Self.hosts(in: output)
    #expect(Set(Self.pins(try #require(hosts["api.example.org"])).keys) == [Self.key(1), Self.key(2), Self.key(3)])
    #expect(hosts["api.example.org"]?["includesSubdomains"] as? Bool == false)
    // The host and its subdomains accept the same keys: one entry.
    #expect(Set(Self.pins(try #require(hosts["example.net"])).keys) == [Self.key(4), Self.key(5)])
    #expect(hosts["example.net"]?["includesSubdomains"] as? Bool == true)
    // The host accepts a key its subdomains do not: left out, named.
    #expect(hosts["example.info"] == nil)
    // A host below it would get example.info's own keys, which OkHttp gives only example.info.
    #expect(hosts["api.example.info"] == nil)
    #expect(
      imported.stderr.contains("not carried: line 10: api.example.info: under example.info, whose keys are not read exactly"),
      "\(imported.stderr)")
    #expect(
      imported.stderr.contains("not carried: line 8: example.info is pinned by itself with keys **.example.info lacks"),
      "\(imported.stderr)")
  }

  @Test func theFormatIsCheckedAgainstTheContent() async throws {
    let directory = try TemporaryDirectory()
    let (wrong, _, output) = try await Self.importing(Self.okHttpFile, named: "Pins.kt", from: "nsc", in: directory)
    #expect(wrong.status == 2)
    #expect(
      wrong.stderr.contains("holds OkHttp's CertificatePinner, not Android's Network Security Config: --from okhttp"),
      "\(wrong.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output))
    let source = try directory.file("Pins.kt", Self.okHttpFile)
    let keyFormat = try await cnpin(["convert", source, "--from", "okhttp", "--to", "nsc"])
    #expect(keyFormat.status == 2)
    #expect(keyFormat.stderr.contains("--from writes a CNPinning configuration: --to plist or json"), "\(keyFormat.stderr)")
    let chain = try await cnpin(["convert", source, "--from", "okhttp", "--chain", source])
    #expect(chain.status == 2)
    #expect(chain.stderr.contains("--chain is not read with --from"), "\(chain.stderr)")
  }

  /// The migration article's path: TrustKit's keys imported, the host's CN chain added from its
  /// chain, the chain checked, and the old file showing nothing was lost.
  @Test func importedKeysTakeTheChainAndStillMatchTheOldFile() async throws {
    let directory = try TemporaryDirectory()
    // A host under a registry TrustKit knows (it refuses .test).
    let root = try TestIdentity.root("Test Root X1")
    let chain = try root.issueIntermediate("R11").issueLeaf("api.example.com", dnsNames: ["api.example.com"]).chain
    let keys = chain.dropFirst().map(\.spkiSHA256Base64)
    let file = Self.trustKit(
      """
          <key>api.example.com</key>
          <dict>
            <key>TSKPublicKeyHashes</key>
            <array>\(keys.map { "<string>\($0)</string>" }.joined())</array>
            <key>TSKDisableDefaultReportUri</key><true/>
          </dict>
      """)
    let (imported, source, output) = try await Self.importing(file, named: "Info.plist", from: "trustkit", in: directory)
    #expect(imported.status == 0, "\(imported.stderr)")
    let pem = try directory.file("chain.pem", chain.dropLast().map(\.pemEncoded).joined())
    let anchors = try directory.file("anchors.pem", root.certificate.pemEncoded)
    let added = try await cnpin(["pins", "--chain", pem, "--host", "api.example.com", "--cafile", anchors, "--add-to", output])
    #expect(added.status == 0, "\(added.stderr)")
    let host = try Self.host("api.example.com", in: output)
    #expect(host["chainSet"] != nil)
    #expect(Set(Self.pins(host).keys) == Set(keys))
    let check = try await cnpin(["check", "--config", output, "--chain", pem, "--host", "api.example.com", "--cafile", anchors])
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("PASS"), "\(check.stdout)")
    let drift = try await cnpin(["lint", output, "--against", source, "--trust", "none"])
    #expect(drift.status == 0, "\(drift.stdout)\(drift.stderr)")
  }

  /// `lint --against` compares TrustKit's report URIs too.
  @Test func lintSeesAChangedReportURI() async throws {
    let directory = try TemporaryDirectory()
    let (imported, source, output) = try await Self.importing(
      Self.trustKitFile, named: "Info.plist", from: "trustkit", in: directory)
    #expect(imported.status == 0, "\(imported.stderr)")
    try Self.trustKitFile.replacingOccurrences(of: "reports.example.com", with: "elsewhere.example.com")
      .write(toFile: source, atomically: true, encoding: .utf8)
    let drift = try await cnpin(["lint", output, "--against", source, "--trust", "none"])
    #expect(drift.status == 1)
    #expect(
      drift.stdout.contains(
        "api.example.com: reports go to https://reports.example.com/pins in \(output), https://elsewhere.example.com/pins in \(source)"
      ),
      "\(drift.stdout)")
  }

  static func hosts(in path: String) throws -> [String: [String: Any]] {
    let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    let manager = root?["CNPinningManager"] as? [String: Any]
    return try #require(manager?["PinnedDomains"] as? [String: [String: Any]], "\(String(describing: root))")
  }

  static func host(_ name: String, in path: String) throws -> [String: Any] {
    try #require(try hosts(in: path)[name])
  }

  /// Key → scope.
  static func pins(_ host: [String: Any]) -> [String: String] {
    let pins = host["spkiPins"] as? [[String: Any]] ?? []
    return Dictionary(uniqueKeysWithValues: pins.map { ($0["sha256"] as? String ?? "", $0["appliesTo"] as? String ?? "") })
  }
}
#endif
