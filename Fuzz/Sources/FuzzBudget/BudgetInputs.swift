import CNPinning
import CNPinningTestKit
import Foundation
import FuzzKit

/// The worst inputs just under 1 MiB (256 KiB for policies, their size limit) that we know how
/// to write for each loader: deepest nesting, most entries, longest strings, most shared
/// references, the largest configuration that loads.
enum BudgetInputs {
  static let size = 1_000_000

  /// Writes the inputs for the raw fuzz targets: DIR/FuzzConfiguration, FuzzCertificate,
  /// FuzzPolicy (a mode byte, then the payload to sign or the token) and FuzzHostName.
  static func write(to directory: URL) throws {
    func save(_ target: String, _ inputs: [(name: String, bytes: [UInt8])], prefix: [UInt8] = []) throws {
      let folder = directory.appendingPathComponent(target)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      for (name, bytes) in inputs { try Data(prefix + bytes).write(to: folder.appendingPathComponent(name)) }
    }
    try save("FuzzConfiguration", configurations())
    try save("FuzzCertificate", certificates())
    try save("FuzzPolicy", policyPayloads(), prefix: [1])
    try save("FuzzPolicy", unsignedTokens(), prefix: [0])
    try save("FuzzHostName", hostNames())
  }

  static func repeated(_ text: String, _ count: Int) -> String { String(repeating: text, count: count) }

  static func configurations() -> [(name: String, bytes: [UInt8])] {
    let plist = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
    let xmlDepth = size / 16
    return [
      ("xml-deep", Array((plist + repeated("<array>", xmlDepth) + repeated("</array>", xmlDepth) + "</plist>").utf8)),
      (
        "xml-wide",
        Array(
          (plist + "<dict>" + (0..<(size / 40)).map { "<key>k\($0)</key><string>v</string>" }.joined() + "</dict></plist>").utf8)
      ),
      ("xml-entities", Array((plist + "<string>" + repeated("&amp;&#x10FFFF;", size / 16) + "</string></plist>").utf8)),
      ("json-deep", Array((repeated("[", size / 2) + repeated("]", size / 2)).utf8)),
      ("json-wide-array", Array(("[" + repeated("0,", size / 2 - 1) + "0]").utf8)),
      ("json-wide-object", Array(("{" + (0..<(size / 12)).map { "\"k\($0)\":1" }.joined(separator: ",") + "}").utf8)),
      ("json-escapes", Array(("{\"PinnedDomains\":\"" + repeated("\\u00e9\\ud83d\\ude00", size / 18) + "\"}").utf8)),
      ("json-loading", Array(largeConfiguration().utf8)),
      ("bplist-doubling", bplistDoubling()),
      ("bplist-shared-string", bplistSharedString()),
      ("bplist-wide-dictionary", bplistWideDictionary()),
    ]
  }

  /// Certificates (the reader refuses more than 1 MiB unread).
  static func certificates() -> [(name: String, bytes: [UInt8])] {
    [("der-deep", Array(repeating: [0x30, 0x80], count: size / 2).flatMap { $0 }), ("der-many-names", manyNames())]
  }

  /// Policy payloads, signed before they are measured (tokens over 256 KiB are refused unread).
  static func policyPayloads() -> [(name: String, bytes: [UInt8])] {
    [
      ("wide-payload", Array(largePolicyPayload().utf8)),
      ("deep-payload", Array((repeated("[", 90_000) + repeated("]", 90_000)).utf8)),
    ]
  }

  static func unsignedTokens() -> [(name: String, bytes: [UInt8])] {
    [("long-token", Array((repeated("eyJh", 65_000) + ".e30.AAAA").utf8))]
  }

  static func hostNames() -> [(name: String, bytes: [UInt8])] {
    [("long-name", Array(repeated("a.", size / 2).utf8)), ("long-ipv6", Array(("[" + repeated("0:", size / 2 - 2) + "1]").utf8))]
  }

  /// A configuration that loads: as many hosts, each with a chain and an SPKI pin, as fit.
  static func largeConfiguration() -> String {
    var hosts: [String] = []
    var length = 0
    var index = 0
    while length < size - 300 {
      let host =
        #""h\#(index).example.com":{"includesSubdomains":true,"chainSet":[[{"type":"prefixWithNumber","value":"Root X"},{"type":"suffix","value":".example.com"}]],"spkiPins":[{"sha256":"YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=","appliesTo":"ca"}]}"#
      hosts.append(host)
      length += host.utf8.count + 1
      index += 1
    }
    return #"{"PinnedDomains":{"# + hosts.joined(separator: ",") + "}}"
  }

  static func largePolicyPayload() -> String {
    var entries: [String] = []
    var length = 0
    var index = 0
    while length < 180_000 {
      let entry = #""h\#(index).example.com":[[{"type":"exact","value":"Corp Root"},{"type":"suffix","value":".example.com"}]]"#
      entries.append(entry)
      length += entry.utf8.count + 1
      index += 1
    }
    return #"{"iat":1799999000,"exp":1800009000,"# + entries.joined(separator: ",") + "}"
  }

  /// Arrays that each reference the next one twice: 2^n values from n objects.
  static func bplistDoubling() -> [UInt8] {
    var writer = BinaryPlistWriter()
    writer.referenceSize = 4
    writer.offsetSize = 4
    let count = size / 20
    writer.objects = (0..<count).map { index in
      index == count - 1 ? .ascii(Array("leaf".utf8)) : .array([UInt64(index + 1), UInt64(index + 1)])
    }
    return writer.encoded()
  }

  /// One 64 KiB string referenced from every slot of one array.
  static func bplistSharedString() -> [UInt8] {
    var writer = BinaryPlistWriter()
    writer.referenceSize = 1
    writer.offsetSize = 4
    writer.objects = [
      .array(Array(repeating: 1, count: (size - 70_000))), .ascii(Array(repeating: UInt8(ascii: "a"), count: 65_536)),
    ]
    return writer.encoded()
  }

  static func bplistWideDictionary() -> [UInt8] {
    var writer = BinaryPlistWriter()
    writer.referenceSize = 4
    writer.offsetSize = 4
    let count = size / 40
    writer.objects =
      [.dictionary(keys: (0..<count).map { UInt64(1 + $0) }, values: Array(repeating: UInt64(count + 1), count: count))]
      + (0..<count).map { .ascii(Array("key\($0)".utf8)) } + [.bool(true)]
    return writer.encoded()
  }

  /// A certificate whose subject holds as many common names as fit in 1 MiB.
  static func manyNames() -> [UInt8] {
    let names = (0..<(size / 24)).map { TestNameAttribute.commonName("n\($0)") }
    let root = try! TestIdentity.root("Budget Root")
    return (try? root.issue(TestCertificateSpec(subject: names)).certificate.derEncoded) ?? []
  }
}
