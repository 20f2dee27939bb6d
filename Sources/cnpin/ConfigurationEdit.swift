import CNPinning
import Foundation

/// `cnpin pins … --add-to FILE`: a suggested chain added to a configuration file, so that the
/// backup chain of a CA change is never typed by hand. Everything the file pins is kept; it is
/// written again in its own format (XML property list or JSON), atomically, and read back.
enum ConfigurationEdit {
  /// The top-level keys a file of pins may hold; any other (a whole Info.plist's
  /// `CFBundleIdentifier`, say) would be lost by writing the file again, so it is refused.
  private static let pinKeys: Set<String> = ["CNPinningManager", "PinnedDomains", "NSAppTransportSecurity"]

  /// What an edit did, in words, and how many chains the file now pins `host` with.
  struct Outcome {
    let message: String
    let hostChains: Int
  }

  /// Adds `chains` to `host`'s chainSet in the file at `path`, and says what it did.
  static func add(_ chains: [CNChain], host: String, includesSubdomains: Bool, to path: String) throws(CLIError) -> Outcome {
    let url = URL(fileURLWithPath: path)
    guard FileManager.default.fileExists(atPath: path) else {
      return try create(chains, host: host, includesSubdomains: includesSubdomains, at: url)
    }
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .configuration("cannot read --add-to \(path): \(error.localizedDescription)")
    }
    let format = try self.format(of: data, path: path)
    let document = try loadDocument(path)
    let updated: (document: CNPinningDocument, added: [Int])
    do {
      updated = try document.adding(chains, to: host, includesSubdomains: includesSubdomains)
    } catch {
      throw .configuration("\(Option.addTo) \(path): \(error)")
    }
    let hostChains = updated.document.entries.first { $0.host == host }?.configuration.chains.count ?? chains.count
    guard !updated.added.isEmpty else {
      return Outcome(message: "\(path) already pins these chains for \(host); nothing written", hostChains: hostChains)
    }
    let encoded = updated.document.encoded(as: format)
    // What is written must read back as what was meant, before it replaces the file.
    guard
      (try? CNPinningDocument(data: encoded, baseDirectory: url.deletingLastPathComponent()))?.entries == updated.document.entries
    else {
      throw .failed("the updated \(path) would not read back as written; nothing written")
    }
    do {
      try encoded.write(to: url, options: .atomic)
    } catch {
      throw .configuration("cannot write \(path): \(error.localizedDescription)")
    }
    let comments = format == .propertyList && String(decoding: data, as: UTF8.self).contains("<!--")
    return Outcome(
      message: "added chain\(updated.added.count == 1 ? "" : "s") \(updated.added.map(String.init).joined(separator: ", ")) to "
        + "\(host) in \(path)\(comments ? " (its XML comments are not kept)" : "")", hostChains: hostChains)
  }

  /// A new file pinning `host` to `chains`: a property list for a `.plist` name, else JSON.
  private static func create(_ chains: [CNChain], host: String, includesSubdomains: Bool, at url: URL) throws(CLIError)
    -> Outcome
  {
    let configuration: CNConfiguration
    do {
      configuration = try CNConfiguration(includesSubdomains: includesSubdomains, chains)
    } catch {
      throw .failed("\(error)")
    }
    let isPropertyList = url.pathExtension.lowercased() == "plist"
    let text =
      isPropertyList
      ? DocumentWriter.propertyList([(host, configuration)]) : DocumentWriter.json([(host, configuration)])
    do {
      try Data(text.utf8).write(to: url, options: .withoutOverwriting)
    } catch {
      throw .configuration("cannot create \(url.path): \(error.localizedDescription)")
    }
    return Outcome(
      message:
        "created \(url.path) (\(isPropertyList ? "property list" : "JSON")) pinning \(host) to \(chains.count) chain\(chains.count == 1 ? "" : "s")",
      hostChains: chains.count)
  }

  /// The file's format, refusing a file that holds more than pins, or a binary property list.
  private static func format(of data: Data, path: String) throws(CLIError) -> CNPinningDocument.Format {
    let isJSON = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
    let tree: Any
    do {
      tree = try ConfigDocument.read(data).foundationObject
    } catch {
      throw .configuration(
        "\(Option.addTo) \(path) is neither JSON nor a property list: \(error.problems.first?.reason ?? "\(error)")")
    }
    if !isJSON, data.starts(with: Array("bplist".utf8)) {
      throw .configuration(
        "\(Option.addTo) \(path) is a binary property list; write it as XML first (cnpin convert \(path) --to plist)")
    }
    guard let top = tree as? [String: Any] else { throw .configuration("\(Option.addTo) \(path) is not a dictionary") }
    let others = top.keys.filter { !pinKeys.contains($0) }.sorted()
    let transport = (top["NSAppTransportSecurity"] as? [String: Any])?.keys.filter { $0 != "NSPinnedDomains" } ?? []
    guard others.isEmpty, transport.isEmpty else {
      let named = (others + transport.sorted()).prefix(3).joined(separator: ", ")
      throw .configuration(
        "\(Option.addTo) \(path) holds more than pins (\(named)), which writing it again would lose; keep the pins in a file of their own, or paste the entry --format plist prints"
      )
    }
    return isJSON ? .json : .propertyList
  }
}
