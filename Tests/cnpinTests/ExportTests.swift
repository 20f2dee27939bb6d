// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// `cnpin convert --to nspinneddomains|nsc|okhttp|trustkit` and `cnpin lint --against`: one
/// configuration exported to every format, each read back by a real parser.
@Suite("cnpin convert to key formats")
struct ExportTests {
  /// The README's Let's Encrypt configuration: an RSA chain and an ECDSA backup chain.
  static let letsEncrypt = #"""
    {"PinnedDomains": {"api.example.com": {"includesSubdomains": true, "expirationDate": "2027-10-01T00:00:00Z", "chainSet": [
      [{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "exact", "value": "Root YR", "mayBeAnchor": true},
       {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": ".example.com"}],
      [{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "prefixWithNumber", "value": "ISRG Root X", "mayBeAnchor": true},
       {"type": "exact", "value": "Root YE", "mayBeAnchor": true}, {"type": "prefixWithNumber", "value": "YE"},
       {"type": "subjectAltName", "value": ".example.com"}]]}}}
    """#

  /// The keys both chains must contribute (Let's Encrypt's certificates, as the CA catalogue
  /// records them): roots, cross-signed roots, and every current and backup issuing CA.
  static let letsEncryptKeys: Set<String> = [
    "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=",  // ISRG Root X1
    "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=",  // ISRG Root X2
    "fk6IOKit1ild5647BH06ujSIq5XbCgqlbYl6ANhhi88=",  // Root YR
    "LoMHBotttiDko50Gi13uXW71eIy7LAttI+rYT8wXF4w=",  // YR1
    "nWN7PSep5XDQdge5zK24CnCRXHr3KvzhKEGxsdqCX9E=",  // YR2
    "UaqofZhLVZrGnpKfiIoCLYMuCJ/026CkErUQG8pLx5k=",  // YR3, backup
    "sCkq5UWXjg+7mKu9lMhhYF5bGLsy7VI/UNW3tccdR7w=",  // Root YE
    "brzvtCELCIZUo4sD/qPX0ccRtPsd3DY6RfmxpOU9oB4=",  // YE1
    "s/tdAOmUzd8syaTuqfgGvFcn6DzA5Cmb+Vby1ST+U3Y=",  // YE2
    "ppiiCCS+BOR6GjPE+kiHMb6SAR8jox6QDiyibJwqz84=",  // YE3, backup
  ]

  /// Reads `file` with Python's standard parsers and prints, per host, JSON of its pins.
  static let pythonReader = #"""
    import json, plistlib, re, sys
    import xml.etree.ElementTree as ET
    kind, path = sys.argv[1], sys.argv[2]
    out = {}
    if kind == "nspinneddomains":
        for host, entry in plistlib.load(open(path, "rb"))["NSAppTransportSecurity"]["NSPinnedDomains"].items():
            keys = [i["SPKI-SHA256-BASE64"] for i in entry.get("NSPinnedCAIdentities", []) + entry.get("NSPinnedLeafIdentities", [])]
            out[host] = {"subdomains": entry["NSIncludesSubdomains"], "keys": keys, "expiration": None}
    elif kind == "trustkit":
        # TrustKit's keys, as ExportConsumerTests records them from TrustKit's source.
        for host, entry in plistlib.load(open(path, "rb"))["TSKPinnedDomains"].items():
            out[host] = {"subdomains": entry["TSKIncludeSubdomains"], "keys": entry["TSKPublicKeyHashes"],
                         "expiration": entry.get("TSKExpirationDate")}
    elif kind == "nsc":
        for config in ET.parse(path).getroot().iter("domain-config"):
            domain = config.find("domain")
            pins = config.find("pin-set")
            out[domain.text] = {"subdomains": domain.get("includeSubdomains") == "true",
                                "keys": [p.text for p in pins.iter("pin") if p.get("digest") == "SHA-256"],
                                "expiration": pins.get("expiration")}
    else:
        for pattern, pin in re.findall(r'^\s*\.add\("([^"]+)", "sha256/([^"]+)"\)', open(path).read(), re.M):
            host = pattern[3:] if pattern.startswith("**.") else pattern
            entry = out.setdefault(host, {"subdomains": pattern.startswith("**."), "keys": [], "expiration": None})
            entry["keys"].append(pin)
    print(json.dumps(out))
    """#

  struct Read: Decodable {
    let subdomains: Bool
    let keys: [String]
    let expiration: String?
  }

  static func python(_ format: String, _ file: String) async throws -> [String: Read] {
    let python = await TestProcess.python3()
    let output = try await run(python.executable, python.arguments + ["-c", pythonReader, format, file])
    #expect(output.status == 0, "\(output.stderr)")
    return try JSONDecoder().decode([String: Read].self, from: Data(output.stdout.utf8))
  }

  @Test(arguments: ["nspinneddomains", "nsc", "okhttp", "trustkit"])
  func oneConfigurationYieldsEveryFormatWithTheKeysOfEveryChain(_ format: String) async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file("pins.json", Self.letsEncrypt)
    let output = directory.url.appendingPathComponent("pins.\(format)").path
    // --trust none: the roots' keys come from the CA catalogue, whatever this machine's store holds.
    let export = try await cnpin(["convert", source, "--to", format, "--trust", "none", "-o", output])
    #expect(export.status == 0, "\(export.stderr)")
    let read = try await Self.python(format, output)
    #expect(Array(read.keys) == ["api.example.com"])
    let host = try #require(read["api.example.com"])
    #expect(Set(host.keys) == Self.letsEncryptKeys)
    #expect(host.keys.count == Self.letsEncryptKeys.count)
    #expect(host.subdomains)
    // NSC and TrustKit carry the expiry; the other two say they cannot.
    let carriesExpiry = format == "nsc" || format == "trustkit"
    #expect(host.expiration == (carriesExpiry ? "2027-10-01" : nil))
    #expect(export.stderr.contains("expirationDate: ") == !carriesExpiry, "\(export.stderr)")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(
      text.contains(
        "Rotates soonest: YR1 (CA catalogue: current, Let's Encrypt Generation Y RSA), key LoMHBotttiDko50Gi13uXW71eIy7LAttI+rYT8wXF4w=, valid until 2028-09-02."
      ))
    #expect(text.contains("YR3 (CA catalogue: backup, Let's Encrypt Generation Y RSA), valid until 2028-09-02"))
    #expect(export.stderr.contains("rotates soonest: YR1"))
    #expect(text.contains("App Transport Security enforces NSPinnedDomains for the whole app") == (format == "nspinneddomains"))
    #expect(
      export.stderr.contains("App Transport Security enforces NSPinnedDomains for the whole app") == (format == "nspinneddomains")
    )

    // The file matches its configuration; a chain added later is drift, and so is a key edited in the file.
    let clean = try await cnpin(["lint", source, "--against", output, "--trust", "none"])
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    #expect(clean.stdout.contains("no drift"))
    let grown = Self.letsEncrypt.replacingOccurrences(
      of: #"]]}}}"#,
      with:
        #"], [{"type": "exact", "value": "DigiCert Global Root G2"}, {"type": "exact", "value": "DigiCert Global G2 TLS RSA SHA256 2020 CA1"}, {"type": "subjectAltName", "value": ".example.com"}]]}}}"#
    )
    let grownSource = try directory.file("grown.json", grown)
    let drift = try await cnpin(["lint", grownSource, "--against", output, "--trust", "none"])
    #expect(drift.status == 1)
    #expect(drift.stdout.contains("api.example.com: \(output) lacks key"), "\(drift.stdout)")
    let edited = try directory.file(
      "edited.\(format)", text.replacingOccurrences(of: "UaqofZhLVZrGnpKfiIoCLYMuCJ", with: "XaqofZhLVZrGnpKfiIoCLYMuCJ"))
    let editedDrift = try await cnpin(["lint", source, "--against", edited, "--trust", "none"])
    #expect(editedDrift.status == 1)
    #expect(editedDrift.stdout.contains("lacks key UaqofZhLVZrGnpKfiIoCLYMuCJ/026CkErUQG8pLx5k="), "\(editedDrift.stdout)")
    #expect(
      editedDrift.stdout.contains("pins key XaqofZhLVZrGnpKfiIoCLYMuCJ/026CkErUQG8pLx5k=, which \(source) no longer yields"))
  }

  /// A private PKI: the rotating intermediate family is unknown, so its chain exports the anchor
  /// key only; the backup chain's exact links export theirs. The NSPinnedDomains file is read by
  /// CNPinning's own reader and enforced by `cnpin get` on loopback.
  @Test func nsPinnedDomainsOutputIsEnforcedByCnpinGet() async throws {
    let fixture = try Fixture()
    let backupRoot = try TestIdentity.root("Backup Root")
    let backupIntermediate = try backupRoot.issueIntermediate("B1")
    let chainFile = try fixture.directory.file(
      "backup.pem", backupIntermediate.certificate.pemEncoded + backupRoot.certificate.pemEncoded)
    let source = try fixture.directory.file(
      "pins.json",
      #"""
      {"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [
        [{"type": "exact", "value": "Test Root X1"}, {"type": "prefixWithNumber", "value": "R"}, {"type": "subjectAltName", "value": "api.test"}],
        [{"type": "exact", "value": "Backup Root"}, {"type": "exact", "value": "B1"}, {"type": "subjectAltName", "value": "api.test"}]]}}}
      """#)
    let output = fixture.directory.url.appendingPathComponent("Info.plist").path
    let export = try await cnpin([
      "convert", source, "--to", "nspinneddomains", "--cafile", fixture.caFile, "--chain", chainFile, "-o", output,
    ])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(
      export.stderr.contains(
        #"PinnedDomains["api.test"].chainSet[0][1]: prefixWithNumber "R" names a CA that renames as it rotates"#),
      "\(export.stderr)")
    let document = try CNPinningDocument(contentsOf: URL(fileURLWithPath: output))
    let pins = try #require(document.entries.first?.configuration.spkiPins)
    #expect(
      Set(pins.map(\.sha256Base64)) == [
        fixture.root.certificate.spkiSHA256Base64, backupRoot.certificate.spkiSHA256Base64,
        backupIntermediate.certificate.spkiSHA256Base64,
      ])
    #expect(pins.allSatisfy { $0.scope == .ca })

    let url = "https://api.test:\(fixture.genuine.port)/"
    let accepted = try await cnpin(
      ["get", url, "--config", output, "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine))
    #expect(accepted.status == 0, "\(accepted.stderr)")
    #expect(accepted.stdout == "hello")
    let rogueURL = "https://api.test:\(fixture.rogue.port)/"
    let refused = try await cnpin(
      ["get", rogueURL, "--config", output, "--cafile", fixture.caFile] + fixture.resolve(fixture.rogue))
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("Pin mismatch for api.test"), "\(refused.stderr)")
  }

  @Test func whatAFormatCannotCarryIsReportedWithItsPathAndExitsOne() async throws {
    let directory = try TemporaryDirectory()
    let pki = try TestPKI()
    let certificate = try directory.file("leaf.pem", pki.leaf.certificate.pemEncoded)
    let source = try directory.file(
      "pins.json",
      #"""
      {"PinnedDomains": {
        "leaf.test": {"includesSubdomains": false, "chainSet": [[{"type": "subjectAltName", "value": "leaf.test"}]],
                      "spkiPins": [{"sha256": "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="}, {"sha256": "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI="}]},
        "cn.test": {"includesSubdomains": false, "chainSet": [
          [{"type": "exact", "value": "ISRG Root X1"}, {"type": "exact", "value": "Nobody's CA"}, {"type": "exact", "value": "cn.test"}],
          [{"type": "exact", "value": "ISRG Root X2"}, {"type": "prefixWithNumber", "value": "YE"}, {"type": "subjectAltName", "value": "cn.test"}]]},
        "single.test": {"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "ISRG Root X1"}, {"type": "subjectAltName", "value": "single.test"}]],
                        "certificatePins": [{"file": "leaf.pem"}], "enforce": true},
        "quiet.test": {"includesSubdomains": false, "enforce": false, "chainSet": [
          [{"type": "exact", "value": "ISRG Root X1"}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": "quiet.test"}]]}
      }}
      """#)
    _ = certificate
    for format in ["nspinneddomains", "nsc", "okhttp", "trustkit"] {
      // Issue 65, item 6: on exit 1 nothing is written unless asked for.
      let unforced = directory.url.appendingPathComponent("unforced.\(format)").path
      let refused = try await cnpin(["convert", source, "--to", format, "--trust", "none", "-o", unforced])
      #expect(refused.status == 1 && !FileManager.default.fileExists(atPath: unforced), "\(format): \(refused.stderr)")
      #expect(refused.stderr.contains("nothing written (--force writes it anyway)"), "\(refused.stderr)")
      let output = directory.url.appendingPathComponent("out.\(format)").path
      let export = try await cnpin(["convert", source, "--to", format, "--trust", "none", "-o", output, "--force"])
      #expect(export.status == 1, "\(format): \(export.stderr)")
      let stderr = export.stderr
      if format == "trustkit" {
        // TrustKit's reader raises at start for a domain outside the public suffix list's
        // registries, .test among them: every host is left out, saying why.
        for host in ["leaf.test", "cn.test", "single.test", "quiet.test"] {
          #expect(
            stderr.contains(#"PinnedDomains["\#(host)"]: TrustKit refuses \#(host): its domain registry knows no public suffix"#))
        }
        #expect(try await Self.python(format, output).isEmpty)
        continue
      }
      // Key pins beside a chain: those keys alone, the chain's names said not to be carried.
      #expect(
        stderr.contains(#"note: PinnedDomains["leaf.test"].chainSet: the CN chains are not carried: the host also pins keys"#),
        "\(stderr)")
      #expect(stderr.contains(#"PinnedDomains["cn.test"].chainSet[0][1]: no certificate given matches exact "Nobody's CA""#))
      #expect(stderr.contains(#"PinnedDomains["cn.test"].chainSet[0][2]: the leaf rule exact "cn.test" is not carried"#))
      #expect(stderr.contains(#"PinnedDomains["single.test"].certificatePins[0]: a whole-certificate pin has no equivalent"#))
      #expect(stderr.contains(#"PinnedDomains["single.test"]: the host ends with a single key (ISRG Root X1"#))
      #expect(stderr.contains(#"PinnedDomains["quiet.test"].enforce: report-only"#))
      // With --force, what could be carried is written: the SPKI pins, the ECDSA chain's keys.
      let read = try await Self.python(format, output)
      #expect(
        Set(read["leaf.test"]?.keys ?? []) == [
          "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=", "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=",
        ])
      #expect(read["cn.test"]?.keys.contains("s/tdAOmUzd8syaTuqfgGvFcn6DzA5Cmb+Vby1ST+U3Y=") == true)  // YE2
      #expect(read["quiet.test"] == nil)
    }
  }

  /// TrustKit carries report-only as TSKEnforcePinning false, for a host its reader takes.
  @Test func trustKitCarriesReportOnly() async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"quiet.example.com": {"includesSubdomains": false, "enforce": false, "chainSet": [[{"type": "exact", "value": "ISRG Root X1"}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": "quiet.example.com"}]]}}}"#
    )
    let output = directory.url.appendingPathComponent("out.plist").path
    let export = try await cnpin(["convert", source, "--to", "trustkit", "--trust", "none", "-o", output])
    #expect(export.status == 0, "\(export.stderr)")
    let trustKit =
      try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: output)), format: nil)
      as? [String: Any]
    let quiet = (trustKit?["TSKPinnedDomains"] as? [String: Any])?["quiet.example.com"] as? [String: Any]
    #expect(quiet?["TSKEnforcePinning"] as? Bool == false)
  }

  /// A key in an exported file is the file's text, not ours: a drift line shows it escaped, so a
  /// line break in it cannot forge another line of the report.
  @Test func aKeyFromTheExportedFileIsEscapedInTheDriftReport() async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "spkiPins": [{"sha256": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="}, {"sha256": "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="}]}}}"#
    )
    let forged = "x\nEXPORTED: no drift from pins.json"  // a line break inside the key
    let exported = try directory.file(
      "trustkit.plist",
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict><key>TSKPinnedDomains</key><dict><key>api.example.com</key><dict>
      <key>TSKIncludeSubdomains</key><false/><key>TSKEnforcePinning</key><true/>
      <key>TSKPublicKeyHashes</key><array><string>AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=</string>
      <string>AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=</string><string>\(forged)</string></array>
      </dict></dict></dict></plist>
      """)
    let drift = try await cnpin(["lint", source, "--against", exported, "--trust", "none"])
    #expect(drift.status == 1)
    #expect(!drift.stdout.split(separator: "\n").contains { $0.hasPrefix("EXPORTED:") }, "\(drift.stdout)")
    #expect(drift.stdout.contains(#"pins key x\x0aEXPORTED: no drift"#), "\(drift.stdout)")
  }

  /// OkHttp files are read as Kotlin reads them: commented-out calls do not count, a `//` inside
  /// a string (base64 holds them) is no comment, and one call may hold several pins over lines.
  @Test func kotlinIsReadAsKotlinReadsIt() async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": true, "spkiPins": [{"sha256": "+///AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}, {"sha256": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="}]}}}"#
    )
    let kotlin = #"""
      // .add("api.test", "sha256/AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=")
      val pinner = CertificatePinner.Builder()
          .add("**.api.test",
               "sha256/+///AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "sha256/AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=") /* .add("api.test", "sha256/AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=") */
          .build()
      """#
    let file = try directory.file("Pins.kt", kotlin)
    let clean = try await cnpin(["lint", source, "--against", file, "--trust", "none"])
    #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
    let uncommented = try directory.file("Uncommented.kt", kotlin.replacingOccurrences(of: "// .add", with: ".add"))
    let drift = try await cnpin(["lint", source, "--against", uncommented, "--trust", "none"])
    #expect(drift.status == 1)
    #expect(
      drift.stdout.contains("pins key AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=, which \(source) no longer yields"),
      "\(drift.stdout)")
  }
}
#endif
