import Foundation
import Testing

@testable import CNPinning

@Suite("Property-list readers")
struct PropertyListReaderTests {
  /// A document with every value type, as Foundation writes it.
  nonisolated(unsafe) static let sample: [String: Any] = [
    "string": "Zürich & <Root> \"quoted\" 😀", "empty": "", "true": true, "false": false, "integer": -42,
    "big": 9_000_000_000, "real": 2.5, "date": Date(timeIntervalSince1970: 1_800_000_000), "data": Data([0, 1, 2, 255]),
    "array": [1, "two", [3], ["four": 4]], "nested": ["a": ["b": ["c": "d"]]],
    "long": String(repeating: "x", count: 300), "utf16": String(repeating: "é", count: 20),
  ]

  static func render(_ value: ConfigValue) -> String {
    switch value {
    case .dictionary(let entries): return "{" + entries.map { "\($0.key)=\(render($0.value))" }.joined(separator: ",") + "}"
    case .array(let elements): return "[" + elements.map(render).joined(separator: ",") + "]"
    case .string(let text): return "s:\(text)"
    case .bool(let flag): return "b:\(flag)"
    case .integer(let number): return "n:\(number)"
    case .real(let number): return Double(Int64(number)) == number ? "n:\(Int64(number))" : "r:\(number)"
    case .date(let date): return "d:\(date.timeIntervalSince1970)"
    case .data(let data): return "x:\(data.base64EncodedString())"
    case .null: return "null"
    }
  }

  @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
  func foundationWrittenDocumentsReadTheSame(_ format: PropertyListSerialization.PropertyListFormat) throws {
    let data = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: format, options: 0)
    let ours = try ConfigDocument.read(data)
    let expected =
      #"{array=[n:1,s:two,[n:3],{four=n:4}],big=n:9000000000,data=x:AAEC/w==,date=d:1800000000.0,empty=s:,false=b:false,integer=n:-42,long=s:"#
      + String(repeating: "x", count: 300)
      + #",nested={a={b={c=s:d}}},real=r:2.5,string=s:Zürich & <Root> "quoted" 😀,true=b:true,utf16=s:"#
      + String(repeating: "é", count: 20) + "}"
    #expect(Self.render(ours) == expected)
  }

  @Test func xmlMarkupIsHandled() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- a comment before the root -->
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
        <!-- comment inside -->
        <key>a&amp;b</key><string>&lt;&#x41;&#66;&gt; <![CDATA[<raw> & ]]>end</string>
        <key>empty</key><string/>
        <key>flag</key><true/>
        <key>list</key><array/>
      </dict>
      </plist>
      """
    #expect(Self.render(try XMLPropertyList.parse(Data(xml.utf8))) == "{a&b=s:<AB> <raw> & end,empty=s:,flag=b:true,list=[]}")
  }

  @Test(arguments: [
    (
      "<plist><dict><key>a</key><string>1</string><key>a</key><string>2</string></dict></plist>",
      "line 1: duplicate key \"a\" in the same <dict>"
    ),
    ("<plist><dict><key>a</key></dict></plist>", "line 1: expected an element"),
    ("<plist><dict><string>x</string></dict></plist>", "line 1: expected <key> in <dict>, found <string>"),
    ("<plist><dict>\n<key>a</key><integer>1.5</integer></dict></plist>", "line 2: <integer> \"1.5\" is not an integer"),
    ("<plist><set/></plist>", "line 1: unsupported element <set>"),
    (
      "<key>CNPinningManager</key>\n<dict></dict>",
      "line 1: the property list starts with <key>: this looks like a fragment pasted from an Info.plist; wrap it in <plist version=\"1.0\"><dict> … </dict></plist>"
    ),
    (
      "<?xml version=\"1.0\"?>\n<plist><key>a</key></plist>",
      "line 2: the property list starts with <key>: this looks like a fragment pasted from an Info.plist; wrap it in <plist version=\"1.0\"><dict> … </dict></plist>"
    ),
    ("<plist><string>&bogus;</string></plist>", "line 1: the entity &bogus; is not one XML predefines"),
    ("<plist><string>&#0;</string></plist>", "line 1: the entity &#0; is not one XML predefines"),
    ("<plist><string>open", "line 1: <string> is never closed"),
    ("<plist><array><string>a</string></plist>", "line 1: the end tag </plist> matches no open element"),
    ("<plist><string>a</string></plist><extra/>", "line 1: unexpected content after the property list"),
    ("<plist><data>!!!</data></plist>", "line 1: <data> is not valid base64"),
    ("<plist><date>tomorrow</date></plist>", "line 1: <date> \"tomorrow\" is not an ISO 8601 date"),
    ("<plist><real>inf</real></plist>", "line 1: <real> \"inf\" is not a finite number"),
    ("<!-- never closed", "line 1: a comment does not end"),
    (
      "<!DOCTYPE plist [<!ENTITY e \"x\">]>\n<plist><string>&e;</string></plist>",
      "line 1: a document type declaration is not read (nor any entity it would declare)"
    ),
    ("<plist><dict>\n<key>a</key><string>1<b/></string></dict></plist>", "line 2: <string> holds an element <b>"),
    ("<plist><dict>x<key>a</key><true/></dict></plist>", "line 1: text in <dict>, where only elements belong"),
    ("<plist><true/><false/></plist>", "line 1: more than one value in <plist>"),
    (String(repeating: "<array>", count: 100), "line 1: elements nest deeper than 64"),
  ])
  func malformedXMLIsRefusedWithTheLine(_ xml: String, _ message: String) {
    do {
      _ = try XMLPropertyList.parse(Data(xml.utf8))
      Issue.record("accepted: \(xml)")
    } catch {
      #expect(error.description == "invalid XML property list at \(message)")
    }
  }

  @Test func duplicateHostsInAnXMLPlistAreNowCaught() throws {
    let xml = plistDocument(
      "<dict><key>PinnedDomains</key><dict><key>a.test</key><dict><key>includesSubdomains</key><false/><key>chainSet</key><array><array><dict><key>value</key><string>A</string></dict></array></array></dict><key>a.test</key><dict/></dict></dict>"
    )
    let error = problems(xml).first
    #expect(error?.code == .malformedDocument)
    let message = try #require(error?.reason, "a repeated host must be refused")
    #expect(message.contains("duplicate key \"a.test\""))
  }

  /// A minimal binary property list: objects, offset table and trailer assembled by hand.
  static func binary(_ objects: [[UInt8]], top: Int = 0, referenceSize: UInt8 = 1) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
      offsets.append(bytes.count)
      bytes += object
    }
    let tableStart = bytes.count
    for offset in offsets { bytes.append(UInt8(offset)) }
    var trailer = [UInt8](repeating: 0, count: 6) + [1, referenceSize]
    for value in [objects.count, top, tableStart] {
      trailer += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    return Data(bytes + trailer)
  }

  @Test func handMadeBinaryListsRead() throws {
    let data = Self.binary([[0xD1, 1, 2], [0x51, UInt8(ascii: "k")], [0xA2, 3, 4], [0x09], [0x10, 7]])
    #expect(Self.render(try BinaryPropertyList.parse(data)) == "{k=[b:true,n:7]}")
  }

  @Test(arguments: [
    ("cycle", binary([[0xA1, 0]]), "object 0 contains itself"),
    ("indirect cycle", binary([[0xA1, 1], [0xA1, 0]]), "object 0 contains itself"),
    ("missing object", binary([[0xA1, 5]]), "a reference to object 5, which does not exist"),
    ("set", binary([[0xC1, 1], [0x09]]), "object 0 has an unsupported type 0xc1 (UIDs and sets are not configuration values)"),
    ("uid", binary([[0x80, 1]]), "object 0 has an unsupported type 0x80 (UIDs and sets are not configuration values)"),
    ("non-string key", binary([[0xD1, 1, 1], [0x10, 1]]), "a dictionary key in object 0 is not a string"),
    ("duplicate key", binary([[0xD2, 1, 1, 2, 2], [0x51, 0x6B], [0x09]]), "duplicate key \"k\" in a dictionary"),
    ("string past the end", binary([[0x5F, 0x10, 0x20]]), "object 0 runs past the end"),
    ("string longer than the file", binary([[0x5F, 0x10, 0xFF]]), "object 0 claims 255 elements"),
    (
      "huge count", binary([[0xAF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]),
      "object 0 claims 9223372036854775807 elements"
    ),
    ("bad UTF-16", binary([[0x61, 0xD8, 0x00]]), "object 0 is not valid UTF-16"),
    ("8-bit ASCII", binary([[0x51, 0xE9]]), "object 0 is an ASCII string with 8-bit bytes"),
    ("overflowing trailer", Data(Array("bplist00".utf8) + [UInt8](repeating: 0xFF, count: 40)), "a number is too large"),
    (
      "inconsistent trailer",
      Data(
        Array("bplist00".utf8) + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 1, 1] + [UInt8](repeating: 0, count: 24)),
      "the trailer is inconsistent"
    ),
    ("too short", Data("bplist00".utf8), "no bplist00 header"),
    // An 8-byte reference of all ones once became index -1 and crashed the loader.
    (
      "all-ones reference", binary([[0xA1] + [UInt8](repeating: 0xFF, count: 8)], referenceSize: 8),
      "a reference to object 18446744073709551615, which does not exist"
    ),
    (
      "reference past Int.max", binary([[0xA1, 0x80, 0, 0, 0, 0, 0, 0, 0]], referenceSize: 8),
      "a reference to object 9223372036854775808, which does not exist"
    ),
  ])
  func malformedBinaryListsAreRefused(_ name: String, _ data: Data, _ message: String) {
    do {
      _ = try BinaryPropertyList.parse(data)
      Issue.record("\(name) was accepted")
    } catch {
      #expect(error.message == message, "\(name)")
    }
  }

  /// Objects that each reference the next twice: 22 levels make 4 million values from a file
  /// of 130 bytes. Shared references are legitimate (Foundation's writer shares equal strings),
  /// so what is bounded is what the file expands to.
  /// `levels` arrays that each hold the next object twice, then one value.
  static func doublingObjects(levels: Int) -> [[UInt8]] {
    var objects: [[UInt8]] = []
    for level in 0..<levels {
      let next = UInt8(level + 1)
      objects.append([0xA2, next, next])
    }
    objects.append([0x09])
    return objects
  }

  @Test func sharedReferencesCannotExpandWithoutBound() throws {
    let levels = 22
    let objects: [[UInt8]] = Self.doublingObjects(levels: levels)
    let data = Self.binary(objects)
    #expect(data.count < 140)
    #expect(throws: BinaryPropertyList.FormatError.self) { _ = try BinaryPropertyList.parse(data) }
    do {
      _ = try BinaryPropertyList.parse(data)
    } catch {
      #expect(error.message.contains("expands to more than"), "\(error.message)")
    }
  }

  @Test func theManagerRefusesThemWithAnErrorNotACrash() {
    let allOnes = Self.binary([[0xA1] + [UInt8](repeating: 0xFF, count: 8)], referenceSize: 8)
    let doubling = Self.binary(Self.doublingObjects(levels: 22))
    for data in [allOnes, doubling] {
      #expect(throws: CNConfigurationError.self) {
        _ = try CNPinningManager(document: CNPinningDocument(data: data, source: "hostile.plist"))
      }
    }
  }

  @Test func largeDocumentsWithSharedStringsStillLoad() throws {
    var hosts: [String: Any] = [:]
    for index in 0..<2000 {
      let link: [String: String] = ["type": "prefixWithNumber", "value": "ISRG Root X"]
      hosts["host\(index).example.com"] = [
        "includesSubdomains": false, "chainSet": [[link, link, ["type": "exact", "value": "host\(index).example.com"]]],
      ]
    }
    let data = try PropertyListSerialization.data(
      fromPropertyList: ["CNPinningManager": ["PinnedDomains": hosts]], format: .binary, options: 0)
    guard case .dictionary(let top) = try BinaryPropertyList.parse(data), case .dictionary(let manager)? = top.first?.value,
      case .dictionary(let pinned)? = manager.first?.value
    else {
      Issue.record("unexpected shape")
      return
    }
    #expect(pinned.count == 2000)
  }

  @Test func truncationsAndCorruptionsOfARealFileNeverCrash() throws {
    let data = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: .binary, options: 0)
    for length in 0..<data.count { _ = try? BinaryPropertyList.parse(data.prefix(length)) }
    for index in 0..<data.count {
      var copy = data
      copy[index] ^= 0xFF
      _ = try? BinaryPropertyList.parse(copy)
    }
  }
}

@Suite("ISO 8601 dates")
struct ISO8601Tests {
  @Test(arguments: [
    ("2027-01-31T00:00:00Z", 1_801_353_600.0), ("1970-01-01T00:00:00Z", 0), ("2000-02-29T12:30:15Z", 951_827_415),
    ("2030-01-01T01:00:00+01:00", 1_893_456_000), ("2030-01-01T00:00:00.25Z", 1_893_456_000.25),
    ("1015-01-01T00:00:00Z", -30_136_924_800),
  ])
  func datesParseAndRoundTrip(_ text: String, _ seconds: Double) throws {
    let date = try #require(ISO8601.date(from: text))
    #expect(date.timeIntervalSince1970 == seconds)
    #expect(ISO8601.date(from: ISO8601.string(from: date)) == date)
  }

  @Test(arguments: [
    "tomorrow", "", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00",
    "2026-01-01 00:00:00Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00Z trailing",
  ])
  func malformedDatesAreRefused(_ text: String) {
    #expect(ISO8601.date(from: text) == nil)
  }
}
