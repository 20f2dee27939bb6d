import Foundation

/// Writes configurations as text, in a fixed layout so that output can be diffed.
package enum DocumentWriter {
  /// A whole XML property list: `CNPinningManager` › `PinnedDomains` › hosts, then
  /// `NSAppTransportSecurity` › `NSPinnedDomains` › `pinnedDomains` (SPKI pins scoped to CA or
  /// leaf only), each section only when it has hosts.
  package static func propertyList(
    _ hosts: [(host: String, configuration: CNConfiguration)],
    pinnedDomains: [(host: String, configuration: CNConfiguration)] = []
  ) -> String {
    var text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>

      """
    if !hosts.isEmpty || pinnedDomains.isEmpty {
      text += "\t<key>CNPinningManager</key>\n\t<dict>\n\t\t<key>PinnedDomains</key>\n\t\t<dict>\n"
      for (host, configuration) in hosts { text += propertyListEntry(host: host, configuration: configuration, indent: 3) }
      text += "\t\t</dict>\n\t</dict>\n"
    }
    if !pinnedDomains.isEmpty {
      text += "\t<key>NSAppTransportSecurity</key>\n\t<dict>\n\t\t<key>NSPinnedDomains</key>\n\t\t<dict>\n"
      for (host, configuration) in pinnedDomains {
        var lines: [(Int, String)] = [
          (0, "<key>\(xmlEscaped(host))</key>"), (0, "<dict>"),
          (1, "<key>NSIncludesSubdomains</key>"), (1, configuration.includesSubdomains ? "<true/>" : "<false/>"),
        ]
        for (key, digests) in identities(configuration) where !digests.isEmpty {
          lines += [(1, "<key>\(key)</key>"), (1, "<array>")]
          for digest in digests {
            lines += [
              (2, "<dict>"), (3, "<key>SPKI-SHA256-BASE64</key>"), (3, "<string>\(xmlEscaped(digest))</string>"), (2, "</dict>"),
            ]
          }
          lines.append((1, "</array>"))
        }
        lines.append((0, "</dict>"))
        text += lines.map { String(repeating: "\t", count: 3 + $0.0) + $0.1 + "\n" }.joined()
      }
      text += "\t\t</dict>\n\t</dict>\n"
    }
    return text + "</dict>\n</plist>\n"
  }

  /// An `NSPinnedDomains` entry's identities: its SPKI pins by scope, under ATS's keys.
  private static func identities(_ configuration: CNConfiguration) -> [(String, [String])] {
    [
      ("NSPinnedCAIdentities", configuration.spkiPins.filter { $0.scope == .ca }.map(\.sha256Base64)),
      ("NSPinnedLeafIdentities", configuration.spkiPins.filter { $0.scope == .leaf }.map(\.sha256Base64)),
    ]
  }

  /// The `<key>host</key><dict>…</dict>` entry to paste under `PinnedDomains`, one element per
  /// line, indented with `indent` tabs.
  package static func propertyListEntry(host: String, configuration: CNConfiguration, indent: Int = 1) -> String {
    var lines: [(Int, String)] = [
      (0, "<key>\(xmlEscaped(host))</key>"), (0, "<dict>"),
      (1, "<key>includesSubdomains</key>"), (1, configuration.includesSubdomains ? "<true/>" : "<false/>"),
    ]
    if !configuration.chains.isEmpty {
      lines += [(1, "<key>chainSet</key>"), (1, "<array>")]
      for chain in configuration.chains {
        lines.append((2, "<array>"))
        for link in chain.links {
          lines += [
            (3, "<dict>"), (4, "<key>type</key>"), (4, "<string>\(link.type.rawValue)</string>"),
            (4, "<key>value</key>"), (4, "<string>\(xmlEscaped(link.value))</string>"),
          ]
          if link.mayBeAnchor { lines += [(4, "<key>mayBeAnchor</key>"), (4, "<true/>")] }
          lines.append((3, "</dict>"))
        }
        lines.append((2, "</array>"))
      }
      lines.append((1, "</array>"))
    }
    for (key, pins) in hashPins(configuration) where !pins.isEmpty {
      lines += [(1, "<key>\(key)</key>"), (1, "<array>")]
      for pin in pins {
        lines.append((2, "<dict>"))
        for (name, value) in pin { lines += [(3, "<key>\(name)</key>"), (3, "<string>\(xmlEscaped(value))</string>")] }
        lines.append((2, "</dict>"))
      }
      lines.append((1, "</array>"))
    }
    if let date = configuration.expirationDate {
      lines += [(1, "<key>expirationDate</key>"), (1, "<date>\(isoDate(date))</date>")]
    }
    if !configuration.enforce { lines += [(1, "<key>enforce</key>"), (1, "<false/>")] }
    if let uri = configuration.reportURI {
      lines += [(1, "<key>reportURI</key>"), (1, "<string>\(xmlEscaped(uri.absoluteString))</string>")]
    }
    lines.append((0, "</dict>"))
    return lines.map { String(repeating: "\t", count: indent + $0.0) + $0.1 + "\n" }.joined()
  }

  /// A whole JSON document with the same structure, two-space indented, keys in a fixed order.
  package static func json(
    _ hosts: [(host: String, configuration: CNConfiguration)],
    pinnedDomains: [(host: String, configuration: CNConfiguration)] = []
  ) -> String {
    var sections: [String] = []
    if !hosts.isEmpty || pinnedDomains.isEmpty {
      let entries = hosts.map { "      \(jsonString($0.host)): " + jsonEntry($0.configuration, indent: 6) }
      sections.append("  \"CNPinningManager\": {\n    \"PinnedDomains\": {\n" + entries.joined(separator: ",\n") + "\n    }\n  }")
    }
    if !pinnedDomains.isEmpty {
      let entries = pinnedDomains.map { host, configuration in
        var members = ["        \"NSIncludesSubdomains\": \(configuration.includesSubdomains)"]
        for (key, digests) in identities(configuration) where !digests.isEmpty {
          let list = digests.map { "          {\"SPKI-SHA256-BASE64\": \(jsonString($0))}" }.joined(separator: ",\n")
          members.append("        \(jsonString(key)): [\n" + list + "\n        ]")
        }
        return "      \(jsonString(host)): {\n" + members.joined(separator: ",\n") + "\n      }"
      }
      sections.append(
        "  \"NSAppTransportSecurity\": {\n    \"NSPinnedDomains\": {\n" + entries.joined(separator: ",\n") + "\n    }\n  }")
    }
    return "{\n" + sections.joined(separator: ",\n") + "\n}\n"
  }

  /// One host's dictionary as JSON, its closing brace indented by `indent` spaces.
  package static func jsonEntry(_ configuration: CNConfiguration, indent: Int = 0) -> String {
    let pad = String(repeating: " ", count: indent)
    var members = ["\(pad)  \"includesSubdomains\": \(configuration.includesSubdomains)"]
    if !configuration.chains.isEmpty {
      let chains = configuration.chains.map { chain in
        "\(pad)    [\n"
          + chain.links.map { link in
            "\(pad)      {\"type\": \(jsonString(link.type.rawValue)), \"value\": \(jsonString(link.value))"
              + (link.mayBeAnchor ? ", \"mayBeAnchor\": true}" : "}")
          }.joined(separator: ",\n") + "\n\(pad)    ]"
      }
      members.append("\(pad)  \"chainSet\": [\n" + chains.joined(separator: ",\n") + "\n\(pad)  ]")
    }
    for (key, pins) in hashPins(configuration) where !pins.isEmpty {
      let entries = pins.map { pin in
        "\(pad)    {" + pin.map { "\(jsonString($0.0)): \(jsonString($0.1))" }.joined(separator: ", ") + "}"
      }
      members.append("\(pad)  \(jsonString(key)): [\n" + entries.joined(separator: ",\n") + "\n\(pad)  ]")
    }
    if let date = configuration.expirationDate { members.append("\(pad)  \"expirationDate\": \(jsonString(isoDate(date)))") }
    if !configuration.enforce { members.append("\(pad)  \"enforce\": false") }
    if let uri = configuration.reportURI { members.append("\(pad)  \"reportURI\": \(jsonString(uri.absoluteString))") }
    return "{\n" + members.joined(separator: ",\n") + "\n\(pad)}"
  }

  /// The hash pins as (key, [(name, value)]) in the file format.
  private static func hashPins(_ configuration: CNConfiguration) -> [(String, [[(String, String)]])] {
    [
      ("spkiPins", configuration.spkiPins.map { [("sha256", $0.sha256Base64), ("appliesTo", $0.scope.rawValue)] }),
      (
        "certificatePins",
        configuration.certificatePins.map { pin in
          [pin.file.map { ("file", $0) } ?? ("sha256", pin.sha256Base64), ("appliesTo", pin.scope.rawValue)]
        }
      ),
    ]
  }

  private static func isoDate(_ date: Date) -> String { ISO8601.string(from: date) }

  /// `text` as a JSON string literal.
  package static func jsonString(_ text: String) -> String { VisibleText.quoted(text, as: .json) }

  /// `text` with XML's special characters escaped. Works on Unicode scalars: "<" followed by a
  /// combining mark is one `Character`, but XML still reads a "<".
  package static func xmlEscaped(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
