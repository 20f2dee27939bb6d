import CNPinning
import Foundation

/// Writes a `PinExport` in its format: Apple's Info.plist `NSPinnedDomains`, Android's
/// `network_security_config.xml`, OkHttp `CertificatePinner` Kotlin, or TrustKit's configuration
/// dictionary as a property list. Each file says where it came from, which key rotates soonest,
/// and whose each key is, in the format's comments.
enum PinExportWriter {
  static func text(_ export: PinExport, source: String, inputs: ExportInputs? = nil, now: Date = Date()) -> String {
    let header = headerLines(export, source: source, inputs: inputs, now: now)
    switch export.format {
    case .nsPinnedDomains: return nsPinnedDomains(export, header: header)
    case .networkSecurityConfig: return networkSecurityConfig(export, header: header)
    case .okHttp: return okHttp(export, header: header)
    case .trustKit: return trustKit(export, header: header)
    }
  }

  /// The warning the NSPinnedDomains output carries, in the file and on standard error.
  static let appTransportSecurityWarning =
    "App Transport Security enforces NSPinnedDomains for the whole app: every URLSession, WKWebView and SDK that connects to these hosts, not only the code that uses CNPinning."

  static func headerLines(_ export: PinExport, source: String, inputs: ExportInputs?, now: Date) -> [String] {
    var lines = [
      "Generated from \(source) by cnpin convert (to \(export.format.rawValue)) on \(PinExport.day(now)).",
      "Each CN chain is resolved to the keys (SPKI SHA-256) of the CA certificates its links name, with every current and backup member of a rotating CA family the CA catalogue knows; a host that also pins keys exports those keys alone. One pinned key anywhere in the verified chain satisfies these pins: looser than the CN chains, which ask for every link.",
    ]
    if let line = inputs?.headerLine { lines.append(line) }
    if export.format == .okHttp {
      lines.append(
        export.hosts.contains(where: \.includesSubdomains)
          ? "Needs OkHttp 4.3 or later: a **. pattern (a domain and every name below it) came in 4.3; OkHttp 3 takes it and pins no host with it (3.13.1 checked)."
          : "Reads with OkHttp 3.x and later (CertificatePinner.Builder().add(pattern, pins))."
      )
    }
    let (soonest, undated) = export.soonestRotation
    if let soonest, let date = soonest.validUntil {
      lines.append("Rotates soonest: \(soonest.origin), key \(soonest.spkiSHA256), valid until \(PinExport.day(date)).")
    }
    if !undated.isEmpty {
      lines.append("No validity date known for: " + undated.map(\.origin).joined(separator: "; ") + ".")
    }
    if export.format == .nsPinnedDomains { lines.append(appTransportSecurityWarning) }
    return lines.map { VisibleText.escaped($0) }
  }

  /// A key's comment: whose it is and until when.
  private static func about(_ key: PinExport.Key) -> String {
    VisibleText.escaped(key.origin + (key.validUntil.map { ", valid until \(PinExport.day($0))" } ?? ""))
  }

  // MARK: - XML

  /// XML text and attribute values, escaped scalar by scalar (one home: `DocumentWriter`).
  private static func xml(_ text: String) -> String { DocumentWriter.xmlEscaped(text) }

  /// An XML comment: `--` may not appear in one.
  private static func comment(_ text: String, indent: String = "") -> String {
    var body = text
    while body.contains("--") { body = body.replacingOccurrences(of: "--", with: "- -") }
    if body.hasSuffix("-") { body += " " }
    return "\(indent)<!-- \(body) -->"
  }

  private static let plistHead = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    """

  private static func nsPinnedDomains(_ export: PinExport, header: [String]) -> String {
    typealias Names = NSPinnedDomainsNames
    var lines = [plistHead] + header.map { comment($0) }
    lines += ["<plist version=\"1.0\">", "<dict>", "  <key>\(Names.appTransportSecurity)</key>", "  <dict>"]
    lines += ["    <key>\(Names.pinnedDomains)</key>", "    <dict>"]
    for host in export.hosts {
      lines += ["      <key>\(xml(host.host))</key>", "      <dict>"]
      lines.append("        <key>\(Names.includesSubdomains)</key>")
      lines.append(host.includesSubdomains ? "        <true/>" : "        <false/>")
      for (member, keys) in [
        (Names.caIdentities, host.keys.filter { !$0.isLeaf }), (Names.leafIdentities, host.keys.filter(\.isLeaf)),
      ]
      where !keys.isEmpty {
        lines += ["        <key>\(member)</key>", "        <array>"]
        for key in keys {
          lines.append(comment(about(key), indent: "          "))
          lines.append("          <dict><key>\(Names.spki)</key><string>\(xml(key.spkiSHA256))</string></dict>")
        }
        lines.append("        </array>")
      }
      lines.append("      </dict>")
    }
    lines += ["    </dict>", "  </dict>", "</dict>", "</plist>"]
    return lines.joined(separator: "\n") + "\n"
  }

  /// TrustKit's keys are the values of its `kTSK…` constants (`TrustKit/TSKTrustKitConfig.m`),
  /// recorded in `TrustKitNames`.
  private static func trustKit(_ export: PinExport, header: [String]) -> String {
    typealias Names = TrustKitNames
    var lines = [plistHead] + header.map { comment($0) }
    lines.append(
      comment(
        "TrustKit's configuration dictionary: pass it to initSharedInstanceWithConfiguration:, or put it under \(Names.infoPlistKey) in the Info.plist."
      ))
    lines += ["<plist version=\"1.0\">", "<dict>", "  <key>\(Names.swizzleNetworkDelegates)</key>", "  <false/>"]
    lines.append(
      comment(
        "On macOS TrustKit skips pinning for a chain that ends at an anchor the user installed unless this is false (its default is true); CNPinning never skips pins.",
        indent: "  "))
    lines += ["  <key>\(Names.ignorePinningForUserDefinedTrustAnchors)</key>", "  <false/>"]
    lines += ["  <key>\(Names.pinnedDomains)</key>", "  <dict>"]
    for host in export.hosts {
      lines += ["    <key>\(xml(host.host.lowercased()))</key>", "    <dict>"]
      lines += ["      <key>\(Names.enforcePinning)</key>", host.enforce ? "      <true/>" : "      <false/>"]
      lines += ["      <key>\(Names.includeSubdomains)</key>", host.includesSubdomains ? "      <true/>" : "      <false/>"]
      lines += ["      <key>\(Names.publicKeyHashes)</key>", "      <array>"]
      for key in host.keys {
        lines.append(comment(about(key), indent: "        "))
        lines.append("        <string>\(xml(key.spkiSHA256))</string>")
      }
      lines.append("      </array>")
      if let date = host.expirationDate {
        lines += ["      <key>\(Names.expirationDate)</key>", "      <string>\(PinExport.day(date))</string>"]
      }
      lines.append(
        comment(
          "Without this TrustKit also sends every failure report to its own default collector; CNPinning reports only where the configuration says.",
          indent: "      "))
      lines += ["      <key>\(Names.disableDefaultReportUri)</key>", "      <true/>"]
      if let uri = host.reportURI {
        lines += [
          "      <key>\(Names.reportUris)</key>", "      <array>", "        <string>\(xml(uri.absoluteString))</string>",
          "      </array>",
        ]
      }
      lines.append("    </dict>")
    }
    lines += ["  </dict>", "</dict>", "</plist>"]
    return lines.joined(separator: "\n") + "\n"
  }

  private static func networkSecurityConfig(_ export: PinExport, header: [String]) -> String {
    typealias Names = NetworkSecurityConfigNames
    var lines = ["<?xml version=\"1.0\" encoding=\"utf-8\"?>"] + header.map { comment($0) }
    lines.append("<\(Names.root)>")
    for host in export.hosts {
      lines.append("  <\(Names.domainConfig)>")
      lines.append(
        "    <\(Names.domain) \(Names.includeSubdomains)=\"\(host.includesSubdomains)\">\(xml(host.host.lowercased()))</\(Names.domain)>"
      )
      let expiration = host.expirationDate.map { " \(Names.expiration)=\"\(PinExport.day($0))\"" } ?? ""
      lines.append("    <\(Names.pinSet)\(expiration)>")
      for key in host.keys {
        lines.append(comment(about(key), indent: "      "))
        lines.append("      <\(Names.pin) \(Names.digest)=\"\(Names.sha256)\">\(xml(key.spkiSHA256))</\(Names.pin)>")
      }
      lines += ["    </\(Names.pinSet)>", "  </\(Names.domainConfig)>"]
    }
    lines.append("</\(Names.root)>")
    return lines.joined(separator: "\n") + "\n"
  }

  // MARK: - Kotlin

  /// A Kotlin string literal: `$` starts a template there.
  private static func kotlin(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "$": escaped += "\\$"
      case _ where VisibleText.needsEscape(scalar):
        // Kotlin's \u takes one UTF-16 unit: a scalar beyond U+FFFF is its surrogate pair.
        escaped += String(scalar).utf16.map { String(format: "\\u%04X", $0) }.joined()
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped + "\""
  }

  private static func okHttp(_ export: PinExport, header: [String]) -> String {
    var lines = header.map { "// \($0)" }
    lines += [
      "", "import okhttp3.CertificatePinner", "", "val certificatePinner: CertificatePinner = CertificatePinner.Builder()",
    ]
    for host in export.hosts {
      // `**.` covers the domain and every name below it.
      let name = host.host.lowercased()
      let pattern = host.includesSubdomains ? "**.\(name)" : name
      for key in host.keys {
        lines.append("    .add(\(kotlin(pattern)), \(kotlin("sha256/" + key.spkiSHA256))) // \(about(key))")
      }
    }
    lines.append("    .build()")
    return lines.joined(separator: "\n") + "\n"
  }
}
