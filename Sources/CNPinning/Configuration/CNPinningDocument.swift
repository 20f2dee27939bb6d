import Foundation

/// A pinning configuration as a file holds it: each host as written, with its pins. Loading
/// validates everything (as `CNPinningManager(contentsOf:)` does); encoding writes the same
/// structure as a property list or JSON, so files convert between the formats without loss.
public struct CNPinningDocument: Sendable, Equatable {
  /// One configured host.
  public struct Entry: Sendable, Equatable {
    /// The host as written in the file.
    public let host: String
    /// The host's pins and settings.
    public let configuration: CNConfiguration
    let name: HostName
    /// Read from `NSAppTransportSecurity` › `NSPinnedDomains`, and written back there: ATS's
    /// rules (a single identity is allowed) are not CNPinning's.
    package let isAppTransportSecurity: Bool
  }

  /// The file formats.
  public enum Format: String, Sendable, CaseIterable {
    /// An XML property list (binary ones are read too).
    case propertyList = "plist"
    /// JSON with the same structure.
    case json
  }

  /// The hosts, sorted by how they are written.
  public let entries: [Entry]
  /// Remarks that did not stop the document from loading.
  public let warnings: [CNConfigurationWarning]
  /// Where the document was read from (a path, or the name given), for the warnings a manager
  /// logs; not part of its equality.
  let source: String?

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.entries == rhs.entries && lhs.warnings == rhs.warnings
  }

  /// Reads a property list (XML or binary) or JSON document. Throws ``CNConfigurationError``
  /// with every problem found. Certificate files named by relative paths are looked for in
  /// `baseDirectory` (the current directory when nil).
  public init(data: Data, source: String? = nil, baseDirectory: URL? = nil) throws {
    let tree: ConfigValue
    do {
      tree = try ConfigDocument.read(data)
    } catch {
      throw CNConfigurationError(source: source, problems: error.problems)
    }
    try self.init(loader: ConfigurationLoader(document: tree, baseDirectory: baseDirectory), source: source)
  }

  /// Reads a configuration file.
  public init(contentsOf url: URL) throws {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw CNConfigurationError(
        source: url.path,
        problems: [.malformedDocument("cannot read the file: \(error.localizedDescription)")])
    }
    try self.init(data: data, source: url.path, baseDirectory: url.deletingLastPathComponent())
  }

  /// The main bundle's Info.plist, `Bundle.main.infoDictionary`: none is refused as an empty one
  /// is ("the main bundle has no Info.plist").
  package static func mainBundle(_ infoDictionary: [String: Any]?) throws -> CNPinningDocument {
    try CNPinningDocument(infoDictionary: infoDictionary ?? [:])
  }

  /// Reads an Info.plist as `Bundle.infoDictionary` gives it (an app's, or the one a command-line
  /// tool embeds in its binary). The dictionary is written as a binary property list and read by
  /// the same strict loader as a file.
  public init(infoDictionary: [String: Any], source: String = "Info.plist") throws {
    guard !infoDictionary.isEmpty else {
      throw CNConfigurationError(
        source: source, problems: [.malformedDocument("the main bundle has no Info.plist")])
    }
    let data: Data
    do {
      data = try PropertyListSerialization.data(fromPropertyList: infoDictionary, format: .binary, options: 0)
    } catch {
      throw CNConfigurationError(
        source: source,
        problems: [.malformedDocument("the Info.plist cannot be written as a property list: \(error)")])
    }
    try self.init(data: data, source: source)
  }

  /// A document holding `configuration`, keyed by host name.
  public init(configuration: [String: CNConfiguration]) throws {
    try self.init(loader: ConfigurationLoader(configurations: configuration), source: nil)
  }

  private init(loader: ConfigurationLoader, source: String?) throws {
    guard loader.problems.isEmpty else { throw CNConfigurationError(source: source, problems: loader.problems) }
    entries = loader.domains.map {
      Entry(host: $0.key, configuration: $0.configuration, name: $0.host, isAppTransportSecurity: $0.isAppTransportSecurity)
    }
    warnings = loader.warnings
    self.source = source
  }

  /// This document with `chains` added to `host`'s chainSet (a new entry with
  /// `includesSubdomains` when the document does not pin `host` itself), everything else kept;
  /// chains the entry already has are not added again. The indexes the added chains have in the
  /// entry's chainSet. Throws ``CNConfigurationError`` for an invalid host, or one pinned only in
  /// `NSPinnedDomains` (which holds no CN chains).
  package func adding(_ chains: [CNChain], to host: String, includesSubdomains: Bool) throws(CNConfigurationError) -> (
    document: CNPinningDocument, added: [Int]
  ) {
    let name: HostName
    switch HostName.parse(host) {
    case .success(let parsed): name = parsed
    case .failure(let invalid): throw CNConfigurationError(.invalidHost(host, reason: invalid.reason))
    }
    var entries = self.entries
    guard let index = entries.firstIndex(where: { $0.name == name && !$0.isAppTransportSecurity }) else {
      if entries.contains(where: { $0.name == name }) {
        throw CNConfigurationError(
          .invalidValue(host, reason: "is pinned in NSPinnedDomains, which holds SPKI pins only, not CN chains"))
      }
      let configuration = try CNConfiguration(includesSubdomains: includesSubdomains, chains)
      // Where the loader puts it: among the document's own hosts, sorted, before NSPinnedDomains'.
      let position = entries.firstIndex { $0.isAppTransportSecurity || $0.host > host } ?? entries.endIndex
      entries.insert(Entry(host: host, configuration: configuration, name: name, isAppTransportSecurity: false), at: position)
      return (CNPinningDocument(entries: entries, warnings: warnings, source: source), Array(chains.indices))
    }
    let old = entries[index].configuration
    let new = chains.filter { !old.chains.contains($0) }
    let configuration = try CNConfiguration(
      includesSubdomains: old.includesSubdomains, chains: old.chains + new, spkiPins: old.spkiPins,
      certificatePins: old.certificatePins, expirationDate: old.expirationDate, enforce: old.enforce,
      reportURI: old.reportURI, allowsSingleHashPin: true)
    entries[index] = Entry(host: entries[index].host, configuration: configuration, name: name, isAppTransportSecurity: false)
    let added = Array(old.chains.count..<(old.chains.count + new.count))
    return (CNPinningDocument(entries: entries, warnings: warnings, source: source), added)
  }

  private init(entries: [Entry], warnings: [CNConfigurationWarning], source: String?) {
    self.entries = entries
    self.warnings = warnings
    self.source = source
  }

  private var own: [(host: String, configuration: CNConfiguration)] {
    entries.filter { !$0.isAppTransportSecurity }.map { ($0.host, $0.configuration) }
  }

  private var appTransportSecurity: [(host: String, configuration: CNConfiguration)] {
    entries.filter(\.isAppTransportSecurity).map { ($0.host, $0.configuration) }
  }

  /// The document in `format`: a complete property list or JSON file.
  public func encoded(as format: Format) -> Data {
    switch format {
    case .propertyList: return Data(DocumentWriter.propertyList(own, pinnedDomains: appTransportSecurity).utf8)
    case .json: return Data(DocumentWriter.json(own, pinnedDomains: appTransportSecurity).utf8)
    }
  }
}
