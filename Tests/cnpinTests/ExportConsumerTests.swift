// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// Every export read as the program that consumes it reads it (issue 65, item 3): the key and
/// element names below are recorded here from each consumer's own source or documentation, apart
/// from cnpin's (`ConsumerNames.swift`), so that a name changed in cnpin fails these tests; each
/// consumer's rules for refusing a file are ported from its source into the Python readers below.
///
/// - TrustKit 3.0.0: datatheorem/TrustKit, commit c48790f306234926d66ed1eb04acf0c23b3df5a1 (MIT),
///   `TrustKit/TSKTrustKitConfig.m` (the key strings: the values of the `kTSK…` constants, not
///   their names) and `TrustKit/parse_configuration.m` (what raises at start). Its domain registry
///   (`GetRegistryLength`) is read here from Debian's public suffix list.
/// - Android: aosp-mirror/platform_frameworks_base, commit 0172a23b1af4735bcca3580bc53e37f57a639c7a
///   (Apache-2.0), `core/java/android/security/net/config/XmlConfigSource.java`. It cannot run here.
/// - NSPinnedDomains: developer.apple.com, Bundle Resources › Information Property List ›
///   NSAppTransportSecurity › NSPinnedDomains, NSPinnedCAIdentities, NSPinnedLeafIdentities.
/// - OkHttp: Debian's libokhttp-java 3.13.1, compiled against with Debian's kotlin and run against
///   loopback servers (`OkHttpConsumerTests`, `make export-consumers`).
@Suite("Exports read by their consumers")
struct ExportConsumerTests {
  /// TrustKit's `parseTrustKitConfiguration`, ported: prints JSON of the domains it keeps, or
  /// `RAISES: …` as TrustKit's exception would stop the app.
  static let trustKitReader = #"""
    import base64, json, plistlib, sys
    GLOBAL = {"TSKSwizzleNetworkDelegates", "TSKPinnedDomains", "TSKIgnorePinningForUserDefinedTrustAnchors"}
    DOMAIN = {"TSKPublicKeyHashes", "TSKEnforcePinning", "kSKExcludeSubdomainFromParentPolicy", "TSKIncludeSubdomains",
              "TSKPublicKeyAlgorithms", "TSKReportUris", "TSKDisableDefaultReportUri", "TSKExpirationDate"}
    rules, wild, exc = set(), set(), set()
    for line in open("/usr/share/publicsuffix/public_suffix_list.dat", encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("//"): continue
        rule = line.split()[0]
        try: rule = ".".join(l if l in ("*",) or l.startswith("!") else l.encode("idna").decode() for l in rule.split("."))
        except UnicodeError: pass
        if rule.startswith("!"): exc.add(rule[1:])
        elif rule.startswith("*."): wild.add(rule[2:])
        else: rules.add(rule)
    def registry_length(host):
        labels = host.split(".")
        if len(labels) < 2 or "" in labels: return 0
        for i in range(len(labels)):
            cand = ".".join(labels[i:])
            if cand in exc: return len(".".join(labels[i + 1:]))
            if cand in rules: return len(cand)
            if i + 1 < len(labels) and ".".join(labels[i + 1:]) in wild: return len(cand)
        return 0
    def raises(message):
        print("RAISES: " + message); sys.exit(0)
    root = plistlib.load(open(sys.argv[1], "rb"))
    root = root.get("TSKConfiguration", root)
    unknown = sorted(set(root) - GLOBAL)
    domains = root.get("TSKPinnedDomains")
    if not domains: raises("no pinned domains")
    out = {"unknownKeys": unknown, "ignoreUserAnchors": root.get("TSKIgnorePinningForUserDefinedTrustAnchors", True),
           "swizzle": root.get("TSKSwizzleNetworkDelegates", False), "domains": {}}
    for name, policy in domains.items():
        if registry_length(name) == 0: raises("invalid domain " + name)
        out["unknownKeys"] += sorted(set(policy) - DOMAIN)
        if policy.get("kSKExcludeSubdomainFromParentPolicy"): continue
        subdomains = policy.get("TSKIncludeSubdomains", False)
        if subdomains and registry_length(name) == len(name): raises("includeSubdomains for a domain suffix " + name)
        enforce = policy.get("TSKEnforcePinning", True)
        pins = set()
        for pin in policy.get("TSKPublicKeyHashes", []):
            if len(base64.b64decode(pin)) != 32: raises("invalid pin " + pin)
            pins.add(pin)
        if len(pins) < (2 if enforce else 1): raises("less than %d pins for %s" % (2 if enforce else 1, name))
        out["domains"][name] = {"subdomains": subdomains, "enforce": enforce, "keys": sorted(pins),
                                "expiration": policy.get("TSKExpirationDate"),
                                "defaultReportUriDisabled": policy.get("TSKDisableDefaultReportUri", False),
                                "reportUris": policy.get("TSKReportUris", [])}
    print(json.dumps(out))
    """#

  /// AOSP's `XmlConfigSource`, ported: the elements and attributes it reads and the file it
  /// refuses (`RAISES: …`, a ParserException: the app does not start its networking).
  static let networkSecurityConfigReader = #"""
    import base64, datetime, json, sys
    import xml.etree.ElementTree as ET
    def raises(message):
        print("RAISES: " + message); sys.exit(0)
    root = ET.parse(sys.argv[1]).getroot()
    if root.tag != "network-security-config": raises("root is " + root.tag)
    skipped, out, seen = [], {}, set()
    def config(element, kind, parent_pins):
        pins, seen_pin_set, domains = parent_pins, False, []
        for child in element:
            if child.tag == "domain":
                if kind != "domain": raises("domain element not allowed")
                name = (child.text or "").strip().lower()
                if not name: raises("Domain name missing")
                if name in seen: raises(name + " has already been specified")
                seen.add(name)
                domains.append((name, child.get("includeSubdomains", "false") == "true"))
            elif child.tag == "pin-set":
                if kind != "domain": raises("pin-set element not allowed")
                if seen_pin_set: raises("Multiple pin-set elements not allowed")
                seen_pin_set = True
                expiration = child.get("expiration")
                if expiration is not None:
                    try: datetime.datetime.strptime(expiration, "%Y-%m-%d")
                    except ValueError: raises("Invalid expiration date in pin-set")
                keys = []
                for pin in child:
                    if pin.tag != "pin": skipped.append(pin.tag); continue
                    if pin.get("digest") != "SHA-256": raises("Unsupported pin digest algorithm")
                    if len(base64.b64decode(pin.text.strip())) != 32: raises("digest length")
                    keys.append(pin.text.strip())
                pins = {"keys": sorted(keys), "expiration": expiration}
            elif child.tag == "trust-anchors":
                skipped.append("trust-anchors")
            elif child.tag == "domain-config":
                if kind != "domain": raises("Nested domain-config not allowed")
                config(child, "domain", pins)
            else:
                skipped.append(child.tag)
        if kind == "domain" and not domains: raises("No domain elements in domain-config")
        for name, subdomains in domains:
            out[name] = {"subdomains": subdomains, **(pins or {"keys": [], "expiration": None})}
    for child in root:
        if child.tag == "domain-config": config(child, "domain", None)
        elif child.tag in ("base-config", "debug-overrides"): config(child, "base", None)
        else: skipped.append(child.tag)
    print(json.dumps({"domains": out, "skipped": skipped}))
    """#

  /// ATS's `NSPinnedDomains` keys, as Apple documents them.
  static let nsPinnedDomainsReader = #"""
    import json, plistlib, sys
    DOMAIN = {"NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities"}
    domains = plistlib.load(open(sys.argv[1], "rb"))["NSAppTransportSecurity"]["NSPinnedDomains"]
    out, unknown = {}, []
    for name, entry in domains.items():
        unknown += sorted(set(entry) - DOMAIN)
        ca = [i["SPKI-SHA256-BASE64"] for i in entry.get("NSPinnedCAIdentities", [])]
        leaf = [i["SPKI-SHA256-BASE64"] for i in entry.get("NSPinnedLeafIdentities", [])]
        for identity in entry.get("NSPinnedCAIdentities", []) + entry.get("NSPinnedLeafIdentities", []):
            unknown += sorted(set(identity) - {"SPKI-SHA256-BASE64"})
        out[name] = {"subdomains": entry.get("NSIncludesSubdomains", False), "ca": sorted(ca), "leaf": sorted(leaf)}
    print(json.dumps({"domains": out, "unknownKeys": unknown}))
    """#

  static func read(_ reader: String, _ file: String) async throws -> [String: Any] {
    let python = await TestProcess.python3()
    let output = try await run(python.executable, python.arguments + ["-c", reader, file])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(!output.stdout.hasPrefix("RAISES"), "the consumer refuses the export: \(output.stdout)")
    return try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)")
  }

  /// A host under a registry TrustKit knows, pinned by the Let's Encrypt chains of the README.
  static func export(_ format: String, extra: [String] = []) async throws -> (TemporaryDirectory, String, Run) {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      ExportTests.letsEncrypt.replacingOccurrences(
        of: #""expirationDate": "2027-10-01T00:00:00Z","#,
        with: #""expirationDate": "2027-10-01T00:00:00Z", "reportURI": "https://reports.example.com/pins","#))
    let output = directory.url.appendingPathComponent("out.\(format)").path
    let result = try await cnpin(["convert", source, "--to", format, "--trust", "none", "-o", output] + extra)
    return (directory, output, result)
  }

  @Test func trustKitReadsTheTrustKitExport() async throws {
    let (directory, output, export) = try await Self.export("trustkit")
    #expect(export.status == 0, "\(export.stderr)")
    let read = try await Self.read(Self.trustKitReader, output)
    #expect(read["unknownKeys"] as? [String] == [], "\(read)")
    // CNPinning never skips pins for an anchor the user installed; TrustKit does on macOS unless told.
    #expect(read["ignoreUserAnchors"] as? Bool == false)
    #expect(read["swizzle"] as? Bool == false)
    let host = try #require((read["domains"] as? [String: [String: Any]])?["api.example.com"])
    #expect(Set(host["keys"] as? [String] ?? []) == ExportTests.letsEncryptKeys)
    #expect(host["subdomains"] as? Bool == true && host["enforce"] as? Bool == true)
    #expect(host["expiration"] as? String == "2027-10-01")
    #expect(host["reportUris"] as? [String] == ["https://reports.example.com/pins"])
    // Reports go where the configuration says, not also to TrustKit's own collector.
    #expect(host["defaultReportUriDisabled"] as? Bool == true)
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(text.contains("skips pinning for a chain that ends at an anchor the user installed"))
    _ = directory
  }

  /// What TrustKit's reader refuses, the export refuses first: a domain outside the public
  /// suffix list's registries, includeSubdomains on a public suffix, one pin.
  @Test(arguments: [
    ("api.test", false, "its domain registry knows no public suffix"),
    ("192.0.2.7", false, "its domain registry knows no public suffix"),
    ("co.uk", true, "includeSubdomains for co.uk, a public suffix"),
  ])
  func whatTrustKitRaisesOnIsNotExported(_ host: String, _ subdomains: Bool, _ words: String) async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"\#(host)": {"includesSubdomains": \#(subdomains), "spkiPins": [{"sha256": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="}, {"sha256": "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="}]}}}"#
    )
    let output = directory.url.appendingPathComponent("out.plist").path
    let export = try await cnpin(["convert", source, "--to", "trustkit", "--trust", "none", "-o", output, "--force"])
    #expect(export.status == 1)
    #expect(export.stderr.contains(words), "\(export.stderr)")
    // The file written anyway (--force) leaves the host out; TrustKit itself raises on it with
    // the host in (the port above agrees with the export's rule).
    let pinned = try directory.file(
      "pinned.plist",
      try String(contentsOfFile: output, encoding: .utf8).replacingOccurrences(
        of: "<key>TSKPinnedDomains</key>\n  <dict>",
        with:
          "<key>TSKPinnedDomains</key>\n  <dict><key>\(host)</key><dict><key>TSKIncludeSubdomains</key><\(subdomains)/><key>TSKPublicKeyHashes</key><array><string>AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=</string><string>AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=</string></array></dict>"
      ))
    let python = await TestProcess.python3()
    let raised = try await run(python.executable, python.arguments + ["-c", Self.trustKitReader, pinned])
    #expect(raised.stdout.hasPrefix("RAISES"), "\(raised.stdout)")
  }

  @Test func androidReadsTheNetworkSecurityConfigExport() async throws {
    let (directory, output, export) = try await Self.export("nsc")
    #expect(export.status == 0, "\(export.stderr)")
    let read = try await Self.read(Self.networkSecurityConfigReader, output)
    #expect(read["skipped"] as? [String] == [], "Android would skip these without a word: \(read)")
    let host = try #require((read["domains"] as? [String: [String: Any]])?["api.example.com"])
    #expect(Set(host["keys"] as? [String] ?? []) == ExportTests.letsEncryptKeys)
    #expect(host["subdomains"] as? Bool == true)
    #expect(host["expiration"] as? String == "2027-10-01")
    _ = directory
  }

  @Test func atsReadsTheNSPinnedDomainsExport() async throws {
    let (directory, output, export) = try await Self.export("nspinneddomains")
    #expect(export.status == 0, "\(export.stderr)")
    let read = try await Self.read(Self.nsPinnedDomainsReader, output)
    #expect(read["unknownKeys"] as? [String] == [], "\(read)")
    let host = try #require((read["domains"] as? [String: [String: Any]])?["api.example.com"])
    #expect(Set(host["ca"] as? [String] ?? []) == ExportTests.letsEncryptKeys)
    #expect(host["subdomains"] as? Bool == true)
    _ = directory
  }
}
#endif
