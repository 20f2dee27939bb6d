// Uses cnpin's process helpers, which run the Linux build's tool.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Testing

@testable import cnpin

/// Android's Network Security Config as `cnpin lint --against` reads it, with the package's one
/// XML reader, `MarkupElement` (issue 57, item 2: FoundationXML's libxml2 and the system's ICU
/// were loaded by every cnpin process for this one command).
@Suite struct NetworkSecurityConfigReadingTests {
  @Test func aRealisticConfigIsRead() throws {
    let root = try MarkupElement.parse(
      """
      \u{FEFF}<?xml version="1.0" encoding="utf-8"?>
      <!-- exported by cnpin -->
      <network-security-config>
        <domain-config cleartextTrafficPermitted='false'>
          <domain includeSubdomains="true">api.example.com</domain>
          <pin-set expiration="2027-10-01">
            <pin digest="SHA-256">C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=</pin>
            <pin digest="SHA-256"><![CDATA[diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=]]></pin>
          </pin-set>
          <domain-config><domain>a&amp;b&#46;example&#x2E;com</domain></domain-config>
        </domain-config>
      </network-security-config>
      """)
    #expect(root.name == "network-security-config")
    let config = try #require(root.children.first)
    #expect(config.attributes == ["cleartextTrafficPermitted": "false"])
    #expect(config.children.map(\.name) == ["domain", "pin-set", "domain-config"])
    #expect(config.children[0].attributes["includeSubdomains"] == "true" && config.children[0].text == "api.example.com")
    #expect(config.children[1].children.map(\.text).last == "diGVwiVYbubAI3RW4hB9xU8e/CH2GnkuvVFZE8zmgzI=")
    #expect(config.children[2].children.first?.text == "a&b.example.com")
    var visited: [(String, Int)] = []
    root.walk { element, ancestors in visited.append((element.name, ancestors.count)) }
    let names: [String] = visited.map { $0.0 }
    #expect(names.filter { $0 == "domain-config" }.count == 2)
    #expect(visited.first { $0.0 == "pin" }?.1 == 3)
  }

  /// A nested `domain-config` without a `pin-set` takes the nearest enclosing config's that has
  /// one (Android's inheritance), one with its own keeps its own, and each domain keeps its own
  /// subdomain rule.
  @Test func nestedConfigsTakeTheNearestPinSet() throws {
    let document = """
      <network-security-config>
        <domain-config>
          <domain includeSubdomains="true">outer.test</domain>
          <pin-set expiration="2027-10-01"><pin digest="SHA-256">OUTER=</pin><pin digest="SHA-1">SHA1=</pin></pin-set>
          <domain-config>
            <domain>inherits.outer.test</domain>
            <domain-config><domain>deeper.outer.test</domain></domain-config>
          </domain-config>
          <domain-config>
            <domain includeSubdomains="true">own.outer.test</domain>
            <pin-set><pin digest="SHA-256">OWN=</pin></pin-set>
            <domain-config><domain>under-own.outer.test</domain></domain-config>
          </domain-config>
        </domain-config>
      </network-security-config>
      """
    let pins = try ExportedPins.read(Data(document.utf8), path: "nsc.xml")
    let outer = ExportedPins.Host(includesSubdomains: true, keys: ["OUTER="], expiration: "2027-10-01")
    #expect(pins.hosts["outer.test"] == outer)
    #expect(pins.hosts["inherits.outer.test"] == ExportedPins.Host(keys: ["OUTER="], expiration: "2027-10-01"))
    #expect(pins.hosts["deeper.outer.test"] == ExportedPins.Host(keys: ["OUTER="], expiration: "2027-10-01"))
    #expect(pins.hosts["own.outer.test"] == ExportedPins.Host(includesSubdomains: true, keys: ["OWN="]))
    #expect(pins.hosts["under-own.outer.test"] == ExportedPins.Host(keys: ["OWN="]))
    #expect(pins.hosts.count == 5)
  }

  /// Every malformed document is refused with the line it is on; none crashes, loops or reads
  /// an entity of its own (XML external entities cannot reach a file).
  @Test func malformedDocumentsAreRefusedWithTheirLine() {
    let deep = String(repeating: "<a>", count: 65) + String(repeating: "</a>", count: 65)
    for (document, line, reason) in [
      (
        "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>", 1,
        "a document type declaration is not read (nor any entity it would declare)"
      ),
      ("<x>\n&e;</x>", 2, "the entity &e; is not one XML predefines"),
      ("<x>\n<y></x>", 2, "the end tag </x> matches no open element"),
      ("<x>", 1, "<x> is never closed"),
      ("<x/><y/>", 1, "a second root element <y>"),
      ("<x></x>\n<y></y>", 2, "a second root element <y>"),
      ("text<x/>", 1, "text outside the root element"),
      ("<x a=b/>", 1, "the value of a in <x> is not quoted"),
      ("<x a='1' a='2'/>", 1, "the attribute a appears twice in <x>"),
      ("<x><!-- open\n\n</x>", 1, "a comment does not end"),
      ("<x>&amp</x>", 1, "an \"&\" that starts no reference"),
      ("", 1, "no root element"),
      (deep, 1, "elements nest deeper than 64"),
    ] {
      #expect(throws: MarkupElement.Invalid(line: line, reason: reason), "\(document.prefix(40))") {
        try MarkupElement.parse(document)
      }
    }
  }

  /// References are found by their bytes: a combining mark after `;` (one character with it)
  /// left `&lt;` unread before, and the document refused.
  @Test func aReferenceBeforeACombiningMarkIsRead() throws {
    #expect(try MarkupElement.parse("<x a='&amp;\u{301}'>&lt;\u{301}&#65;\u{301}</x>").text == "<\u{301}A\u{301}")
    #expect(try MarkupElement.parse("<x a='&amp;\u{301}'/>").attributes["a"] == "&\u{301}")
  }

  /// Every truncation of a real document, and 5,000 with bytes replaced (a fixed seed), is read
  /// or refused: none crashes or hangs the reader.
  @Test func damagedDocumentsAreReadOrRefused() {
    let document = Array(
      """
      <?xml version="1.0"?><!-- c --><network-security-config><domain-config><domain includeSubdomains="true">a.test</domain>
      <pin-set expiration="2027-01-01"><pin digest="SHA-256">&#65;&lt;<![CDATA[x]]></pin></pin-set></domain-config></network-security-config>
      """.utf8)
    var outcomes = (read: 0, refused: 0)
    func attempt(_ bytes: [UInt8]) {
      do {
        _ = try MarkupElement.parse(String(decoding: bytes, as: UTF8.self))
        outcomes.read += 1
      } catch {
        outcomes.refused += 1
      }
    }
    for end in 0...document.count { attempt(Array(document[..<end])) }
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33)
    }
    let alphabet = Array("<>/!?&;#x\"'=[]- a".utf8) + [0x00, 0xFF, 0x0A]
    for _ in 0..<5_000 {
      var bytes = document
      for _ in 0..<(1 + next() % 4) { bytes[next() % bytes.count] = alphabet[next() % alphabet.count] }
      attempt(bytes)
    }
    #expect(outcomes.read + outcomes.refused == document.count + 1 + 5_000)
    #expect(outcomes.read > 0 && outcomes.refused > 0)
  }

  /// A pin-set outside any domain-config crashed `cnpin lint --against` (an index out of range in
  /// the FoundationXML delegate); now such a file is read, and its stray pins belong to no host.
  @Test func aPinSetOutsideADomainConfigIsNoCrash() async throws {
    let directory = try TemporaryDirectory()
    let source = try directory.file(
      "pins.json",
      #"{"PinnedDomains": {"api.test": {"includesSubdomains": false, "spkiPins": [{"sha256": "+///AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}, {"sha256": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="}]}}}"#
    )
    let stray = try directory.file(
      "nsc.xml",
      """
      <network-security-config><pin-set><pin digest="SHA-256">AAAA</pin></pin-set></network-security-config>
      """)
    let run = try await cnpin(["lint", source, "--against", stray, "--trust", "none"])
    #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("api.test"), "\(run.stdout)")
    let broken = try directory.file("broken.xml", "<network-security-config>\n<domain-config>\n</network-security-config>")
    let refused = try await cnpin(["lint", source, "--against", broken, "--trust", "none"])
    #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
    #expect(refused.stderr.contains("broken.xml:3: invalid XML: the end tag </network-security-config> matches no open element"))
  }
}
#endif
