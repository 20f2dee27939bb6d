@_spi(Locking) import CNPinning
import Foundation
import Testing

@Suite("Configuration files")
struct ConfigurationLoadingTests {
  static let seedExample = """
    <dict>
      <key>CFBundleIdentifier</key><string>com.example.app</string>
      <key>CNPinningManager</key>
      <dict>
        <key>PinnedDomains</key>
        <dict>
          <key>captive.apple.com</key>
          <dict>
            <key>includesSubdomains</key><false/>
            <key>chainSet</key>
            <array>
              <array>
                <dict><key>type</key><string>exact</string><key>value</key><string>DigiCert Global Root G</string></dict>
                <dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>Apple Public Server ECC CA 1 - G</string></dict>
                <dict><key>type</key><string>suffix</string><key>value</key><string>.apple.com</string></dict>
              </array>
            </array>
          </dict>
          <key>austinsoft.com</key>
          <dict>
            <key>includesSubdomains</key><false/>
            <key>chainSet</key>
            <array>
              <array>
                <dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>ISRG Root X</string></dict>
                <dict><key>type</key><string>prefixWithNumber</string><key>value</key><string>R</string></dict>
                <dict><key>type</key><string>suffix</string><key>value</key><string>austinsoft.com</string></dict>
              </array>
            </array>
          </dict>
        </dict>
      </dict>
    </dict>
    """

  static let expected: [String: CNConfiguration] = {
    try! [
      "captive.apple.com": CNConfiguration(
        includesSubdomains: false,
        [
          chain(
            (.exact, "DigiCert Global Root G"), (.prefixWithNumber, "Apple Public Server ECC CA 1 - G"),
            (.suffix, ".apple.com"))
        ]),
      "austinsoft.com": CNConfiguration(
        includesSubdomains: false,
        [chain((.prefixWithNumber, "ISRG Root X"), (.prefixWithNumber, "R"), (.suffix, "austinsoft.com"))]),
    ]
  }()

  @Test func seedInfoPlistLoads() throws {
    let manager = try CNPinningManager(document: CNPinningDocument(data: plistDocument(Self.seedExample)))
    #expect(manager.pinnedDomains == Self.expected)
    #expect(manager.warnings.isEmpty)
  }

  @Test func managerDictionaryAloneLoads() throws {
    let value = try PropertyListSerialization.propertyList(from: plistDocument(Self.seedExample), format: nil)
    let inner = try #require((value as? [String: Any])?["CNPinningManager"])
    let xml = try PropertyListSerialization.data(fromPropertyList: inner, format: .xml, options: 0)
    #expect(try CNPinningManager(document: CNPinningDocument(data: xml)).pinnedDomains == Self.expected)
  }

  @Test func binaryPropertyListLoads() throws {
    let value = try PropertyListSerialization.propertyList(from: plistDocument(Self.seedExample), format: nil)
    let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    #expect(binary.starts(with: Array("bplist".utf8)))
    #expect(try CNPinningManager(document: CNPinningDocument(data: binary)).pinnedDomains == Self.expected)
  }

  @Test func jsonWithTheSameStructureLoads() throws {
    let json = """
      {"CNPinningManager": {"PinnedDomains": {
        "captive.apple.com": {"includesSubdomains": false, "chainSet": [[
          {"type": "exact", "value": "DigiCert Global Root G"},
          {"type": "prefixWithNumber", "value": "Apple Public Server ECC CA 1 - G"},
          {"type": "suffix", "value": ".apple.com"}]]},
        "austinsoft.com": {"includesSubdomains": false, "chainSet": [[
          {"type": "prefixWithNumber", "value": "ISRG Root X"},
          {"type": "prefixWithNumber", "value": "R"},
          {"type": "suffix", "value": "austinsoft.com"}]]}
      }}}
      """
    #expect(try CNPinningManager(document: CNPinningDocument(data: Data(json.utf8))).pinnedDomains == Self.expected)
    // The same without the outer CNPinningManager key.
    let inner =
      #"{"PinnedDomains": {"austinsoft.com": {"includesSubdomains": true, "chainSet": [[{"type": "exact", "value": "R"}]]}}}"#
    #expect(
      try CNPinningManager(document: CNPinningDocument(data: Data(inner.utf8))).pinnedDomains["austinsoft.com"]?
        .includesSubdomains == true)
  }

  @Test func filesLoadFromDisk() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cnpinning-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("Info.plist")
    try plistDocument(Self.seedExample).write(to: file)
    #expect(try CNPinningManager(contentsOf: file).pinnedDomains == Self.expected)

    let missing = directory.appendingPathComponent("absent.plist")
    let error = try #require(throws: CNConfigurationError.self) { try CNPinningManager(contentsOf: missing) }
    #expect(error.source == missing.path)
    #expect(error.description.contains("cannot read the file"))
  }

  @Test func linkWithoutTypeIsExactAndWarns() throws {
    let json = jsonConfiguration(
      #"{"includesSubdomains": false, "chainSet": [[{"value": "Root"}, {"type": "exact", "value": "leaf"}]]}"#)
    let manager = try CNPinningManager(document: CNPinningDocument(data: Data(json.utf8)))
    #expect(manager.pinnedDomains["api.example.com"]?.chains == [try chain((.exact, "Root"), (.exact, "leaf"))])
    #expect(manager.warnings.map(\.path) == [#"PinnedDomains["api.example.com"].chainSet[0][0]"#])
    #expect(manager.warnings[0].message.contains("treated as \"exact\""))
  }

  struct BadDocument: Sendable, CustomTestStringConvertible {
    let name: String
    let hostBody: String
    let expected: [CNConfigurationError.Problem]
    var testDescription: String { name }
  }

  static let host = #"PinnedDomains["api.example.com"]"#

  static let badHosts: [BadDocument] = [
    BadDocument(
      name: "unknown link type",
      hostBody:
        #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}, {"type": "prefix", "value": "B"}, {"type": "prefx", "value": "C"}]]}"#,
      expected: [.init("\(host).chainSet[0][2].type", .unknownLinkType("prefx", suggestion: "prefix"))]),
    BadDocument(
      name: "missing includesSubdomains",
      hostBody: #"{"chainSet": [[{"type": "exact", "value": "A"}]]}"#,
      expected: [.init("\(host).includesSubdomains", .missingValue("includesSubdomains"))]),
    BadDocument(
      name: "includesSubdomains as a string",
      hostBody: #"{"includesSubdomains": "false", "chainSet": [[{"type": "exact", "value": "A"}]]}"#,
      expected: [.init("\(host).includesSubdomains", .wrongType(expected: "a boolean", found: "a string"))]),
    BadDocument(
      name: "includesSubdomains as a number",
      hostBody: #"{"includesSubdomains": 1, "chainSet": [[{"type": "exact", "value": "A"}]]}"#,
      expected: [.init("\(host).includesSubdomains", .wrongType(expected: "a boolean", found: "a number"))]),
    BadDocument(
      name: "missing chainSet",
      hostBody: #"{"includesSubdomains": false}"#,
      expected: [.init("\(host).chainSet", .missingValue("chainSet"))]),
    BadDocument(
      name: "chainSet is not an array",
      hostBody: #"{"includesSubdomains": false, "chainSet": {"a": 1}}"#,
      expected: [.init("\(host).chainSet", .wrongType(expected: "an array of chains", found: "a dictionary"))]),
    BadDocument(
      name: "empty chainSet",
      hostBody: #"{"includesSubdomains": false, "chainSet": []}"#,
      expected: [.init("\(host).chainSet", .noChainsDefined)]),
    BadDocument(
      name: "empty chain",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}], []]}"#,
      expected: [.init("\(host).chainSet[1]", .emptyChain)]),
    BadDocument(
      name: "chain is not an array",
      hostBody: #"{"includesSubdomains": false, "chainSet": ["R11"]}"#,
      expected: [.init("\(host).chainSet[0]", .wrongType(expected: "an array of links (root → leaf)", found: "a string"))]),
    BadDocument(
      name: "link is not a dictionary",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[["exact", "A"]]]}"#,
      expected: [
        .init("\(host).chainSet[0][0]", .wrongType(expected: #"a dictionary with "type" and "value""#, found: "an array"))
      ]),
    BadDocument(
      name: "missing value",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[{"type": "exact"}]]}"#,
      expected: [.init("\(host).chainSet[0][0].value", .missingValue("value"))]),
    BadDocument(
      name: "empty value",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[{"type": "suffix", "value": ""}]]}"#,
      expected: [.init("\(host).chainSet[0][0].value", .emptyValue)]),
    BadDocument(
      name: "value is not a string",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": 11}]]}"#,
      expected: [.init("\(host).chainSet[0][0].value", .wrongType(expected: "a string", found: "a number"))]),
    BadDocument(
      name: "type is not a string",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[{"type": true, "value": "A"}]]}"#,
      expected: [.init("\(host).chainSet[0][0].type", .wrongType(expected: "a string", found: "a boolean"))]),
    BadDocument(
      name: "misspelled link key",
      hostBody: #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A", "vaule": "B"}]]}"#,
      expected: [.init("\(host).chainSet[0][0].vaule", .unknownKey("vaule", suggestion: "value"))]),
    BadDocument(
      name: "misspelled host key",
      hostBody: #"{"includeSubdomains": true, "includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}]]}"#,
      expected: [.init("\(host).includeSubdomains", .unknownKey("includeSubdomains", suggestion: "includesSubdomains"))]),
    BadDocument(
      name: "repeated chain",
      hostBody:
        #"{"includesSubdomains": false, "chainSet": [[{"type": "exact", "value": "A"}], [{"type": "exact", "value": "B"}], [{"type": "exact", "value": "A"}]]}"#,
      expected: [.init("\(host).chainSet[2]", .duplicateChain(2))]),
    BadDocument(
      name: "host is not a dictionary",
      hostBody: #"[]"#,
      expected: [.init(host, .wrongType(expected: "a dictionary", found: "an array"))]),
    BadDocument(
      name: "several problems in document order",
      hostBody: #"{"includesSubdomains": "yes", "chainSet": [[{"type": "Exact", "value": ""}], []]}"#,
      expected: [
        .init("\(host).includesSubdomains", .wrongType(expected: "a boolean", found: "a string")),
        .init("\(host).chainSet[0][0].type", .unknownLinkType("Exact", suggestion: "exact")),
        .init("\(host).chainSet[0][0].value", .emptyValue),
        .init("\(host).chainSet[1]", .emptyChain),
      ]),
  ]

  @Test(arguments: badHosts)
  func malformedHostEntriesNameTheElement(_ document: BadDocument) {
    #expect(problems(json: jsonConfiguration(document.hostBody)) == document.expected)
  }

  @Test(arguments: badHosts)
  func theSameProblemsAreFoundInPropertyLists(_ document: BadDocument) throws {
    // Convert the JSON test document to an XML plist (JSON null and numbers have plist equivalents).
    let json = try JSONSerialization.jsonObject(with: Data(jsonConfiguration(document.hostBody).utf8))
    guard let xml = try? PropertyListSerialization.data(fromPropertyList: json, format: .xml, options: 0) else {
      return
    }
    #expect(problems(xml) == document.expected)
  }

  @Test func documentLevelProblems() {
    #expect(problems(json: #"{"PinnedDomains": {}}"#) == [.init("PinnedDomains", .noPinnedDomains)])
    #expect(
      problems(json: #"{"PinnedDomains": []}"#)
        == [.init("PinnedDomains", .wrongType(expected: "a dictionary of hosts", found: "an array"))])
    #expect(
      problems(json: #"{"CNPinningManager": {"PinedDomains": {}}}"#) == [
        .init("PinedDomains", .unknownKey("PinedDomains", suggestion: "PinnedDomains")),
        .init("", .missingValue("PinnedDomains")),
      ])
    #expect(problems(json: #"{"CFBundleName": "App"}"#) == [.init("", .missingValue("CNPinningManager"))])
    #expect(
      problems(json: #"{"CNPinningManager": "yes"}"#)
        == [.init("CNPinningManager", .wrongType(expected: "a dictionary", found: "a string"))])
    #expect(
      problems(plistDocument("<dict><key>CNPinningManager</key><dict/></dict>"))
        == [.init("", .missingValue("PinnedDomains"))])
  }

  @Test(arguments: [
    ("not a document", "hello"),
    ("empty", ""),
    ("JSON array at the top", "[1, 2]"),
    ("truncated JSON", #"{"PinnedDomains": {"#),
    ("duplicate JSON key", #"{"PinnedDomains": {"a.com": {}, "a.com": {}}}"#),
    ("trailing comma", #"{"PinnedDomains": {},}"#),
    ("garbage after JSON", #"{"PinnedDomains": {}} x"#),
    ("broken XML", "<?xml version=\"1.0\"?><plist><dict><key>a</key>"),
  ])
  func unreadableDocumentsAreRejected(_ name: String, _ text: String) {
    let found = problems(Data(text.utf8))
    #expect(found.count == 1, "\(name)")
    #expect(found.first?.isMalformedDocument == true, "\(name): expected malformedDocument, found \(found)")
  }

  @Test func jsonSyntaxErrorsSayWhere() {
    let found = problems(json: "{\n  \"PinnedDomains\": {\"a.com\": {}, \"a.com\": {}}\n}")
    #expect(found.first?.description == #"invalid JSON at line 2, column 34: duplicate key "a.com" in the same object"#)
  }

  @Test func problemsComeInTheSameOrderEveryTime() throws {
    var hosts: [String] = []
    for index in 0..<40 {
      hosts.append(#""h\#(index).example.com": {"includesSubdomains": \#(index % 2 == 0 ? "1" : "false"), "chainSet": []}"#)
    }
    let json = #"{"PinnedDomains": {"# + hosts.joined(separator: ",") + "}}"
    let first = problems(json: json)
    #expect(first.count == 60)
    let paths = first.map(\.path)
    #expect(paths.first == #"PinnedDomains["h0.example.com"].includesSubdomains"#)
    for _ in 0..<5 { #expect(problems(json: json) == first) }

    // The property-list reader (whose dictionaries are unordered) reports in the same order.
    let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
    let xml = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
    #expect(problems(xml) == first)
  }

  @Test func errorDescriptionNamesFileAndPath() {
    let json = jsonConfiguration(#"{"includesSubdomains": false, "chainSet": [[{"type": "prefx", "value": "C"}]]}"#)
    do {
      _ = try CNPinningManager(document: CNPinningDocument(data: Data(json.utf8), source: "pins.json"))
      Issue.record("expected an error")
    } catch {
      #expect(
        "\(error)"
          == #"Invalid pinning configuration in pins.json: PinnedDomains["api.example.com"].chainSet[0][0].type: unknown link type "prefx" (did you mean "prefix"?) (expected one of: exact, prefix, prefixWithNumber, suffix, subjectAltName)"#
      )
    }
  }
}

/// The log handler is process-wide: the tests that set it run one at a time.
@Suite("Warning hook", .serialized)
struct WarningHookTests {
  @Test func appsReceiveWarningsThroughTheirHandler() throws {
    let source = "hook-test-\(UUID().uuidString).json"
    let received = Locked<[String]>([])
    CNPinningLog.setHandler { message in received.withLock { $0.append(message) } }
    defer { CNPinningLog.setHandler(nil) }
    let json = jsonConfiguration(#"{"includesSubdomains": false, "chainSet": [[{"value": "Root"}]]}"#)
    _ = try CNPinningManager(document: CNPinningDocument(data: Data(json.utf8), source: source))
    let mine = received.withLock { $0 }.filter { $0.hasPrefix(source) }
    #expect(
      mine == [#"\#(source): PinnedDomains["api.example.com"].chainSet[0][0]: link has no "type"; it is treated as "exact""#])
  }

  /// The handler a service (and `cnpin`) sets for release builds writes each warning as one line
  /// (issue 54, item 2: release builds logged nowhere).
  @Test func theFileHandlerWritesEachWarningAsALine() throws {
    let pipe = Pipe()
    CNPinningLog.setHandler(CNPinningLog.handler(writingTo: pipe.fileHandleForWriting))
    defer { CNPinningLog.setHandler(nil) }
    let mark = UUID().uuidString
    CNPinningLog.warn("api.test: refused \(mark)")
    CNPinningLog.warn("second \(mark)")
    try pipe.fileHandleForWriting.close()
    let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    // Other suites' warnings, written beside these, are lines of their own and left out.
    let lines = written.split(separator: "\n", omittingEmptySubsequences: false)
    let ownLines = ["CNPinning warning: api.test: refused \(mark)", "CNPinning warning: second \(mark)"]
    #expect(lines.filter { $0.contains(mark) }.map(String.init) == ownLines)
    #expect(lines.last == "", "the last warning does not end its line: \(written)")
  }

  /// Reading the handler must not change it: each warning once wrapped the stored closure in two
  /// more conversion thunks, so every call went deeper and slower than the one before.
  /// Only this test's own warnings count: tests of other suites, running beside it, warn through
  /// the same handler from their own threads, at their own depths.
  @Test func theHandlerIsCalledAtTheSameDepthAfterManyWarnings() {
    let source = "depth-test-\(UUID().uuidString)"
    let depths = Locked<[Int]>([])
    CNPinningLog.setHandler { message in
      guard message.hasPrefix(source) else { return }
      depths.withLock { $0.append(Thread.callStackReturnAddresses.count) }
    }
    defer { CNPinningLog.setHandler(nil) }
    for index in 0..<200 { CNPinningLog.warn("\(source): warning \(index)") }
    let seen = depths.withLock { $0 }
    #expect(seen.count == 200)
    #expect(Set(seen).count == 1, "stack depths of the handler's calls: \(seen.first ?? 0) first, \(seen.last ?? 0) last")
  }

  /// An NSPinnedDomains entry with one identity (which ATS accepts) is logged as a warning.
  @Test func aSingleNSPinnedIdentityIsLogged() throws {
    let source = "single-identity-\(UUID().uuidString).plist"
    let received = Locked<[String]>([])
    CNPinningLog.setHandler { message in received.withLock { $0.append(message) } }
    defer { CNPinningLog.setHandler(nil) }
    let digest = Data(repeating: 7, count: 32).base64EncodedString()
    let plist = plistDocument(
      "<dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>a.example.org</key><dict><key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(digest)</string></dict></array></dict></dict></dict></dict>"
    )
    let manager = try CNPinningManager(document: CNPinningDocument(data: plist, source: source))
    #expect(manager.warnings.count == 1)
    #expect(received.withLock { $0 }.filter { $0.hasPrefix(source) } == manager.warnings.map { "\(source): \($0)" })
  }
}

extension CNConfigurationError.Problem {
  var isMalformedDocument: Bool { code == .malformedDocument }
}
