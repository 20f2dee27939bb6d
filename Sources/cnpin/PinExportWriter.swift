import CNPinning
import Foundation

/// Writes a `PinExport` in its format: Apple's Info.plist `NSPinnedDomains`, Android's
/// `network_security_config.xml`, OkHttp `CertificatePinner` Kotlin, or TrustKit's configuration
/// dictionary as a property list. Each file says where it came from, which key rotates soonest,
/// and whose each key is, in the format's comments.
enum PinExportWriter {
  static func text(_ export: PinExport, source: String, now: Date = Date()) -> String {
    let header = headerLines(export, source: source, now: now)
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

  static func headerLines(_ export: PinExport, source: String, now: Date) -> [String] {
    var lines = [
      "Generated from \(source) by cnpin convert (to \(export.format.rawValue)) on \(PinExport.day(now)).",
      "Each CN chain is resolved to the keys (SPKI SHA-256) of the CA certificates its links name, with every current and backup member of a rotating CA family the CA catalogue knows. One pinned key anywhere in the verified chain satisfies these pins: looser than the CN chains, which ask for every link.",
    ]
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
    var lines = [plistHead] + header.map { comment($0) }
    lines += ["<plist version=\"1.0\">", "<dict>", "  <key>NSAppTransportSecurity</key>", "  <dict>"]
    lines += ["    <key>NSPinnedDomains</key>", "    <dict>"]
    for host in export.hosts {
      lines += ["      <key>\(xml(host.host))</key>", "      <dict>"]
      lines.append("        <key>NSIncludesSubdomains</key>")
      lines.append(host.includesSubdomains ? "        <true/>" : "        <false/>")
      for (member, keys) in [
        ("NSPinnedCAIdentities", host.keys.filter { !$0.isLeaf }), ("NSPinnedLeafIdentities", host.keys.filter(\.isLeaf)),
      ]
      where !keys.isEmpty {
        lines += ["        <key>\(member)</key>", "        <array>"]
        for key in keys {
          lines.append(comment(about(key), indent: "          "))
          lines.append("          <dict><key>SPKI-SHA256-BASE64</key><string>\(xml(key.spkiSHA256))</string></dict>")
        }
        lines.append("        </array>")
      }
      lines.append("      </dict>")
    }
    lines += ["    </dict>", "  </dict>", "</dict>", "</plist>"]
    return lines.joined(separator: "\n") + "\n"
  }

  private static func trustKit(_ export: PinExport, header: [String]) -> String {
    var lines = [plistHead] + header.map { comment($0) }
    lines.append(
      comment(
        "TrustKit's configuration dictionary: pass it to initSharedInstanceWithConfiguration:, or put it under TSKConfiguration in the Info.plist."
      ))
    lines += ["<plist version=\"1.0\">", "<dict>", "  <key>kTSKSwizzleNetworkDelegates</key>", "  <false/>"]
    lines += ["  <key>kTSKPinnedDomains</key>", "  <dict>"]
    for host in export.hosts {
      lines += ["    <key>\(xml(host.host))</key>", "    <dict>"]
      lines += ["      <key>kTSKEnforcePinning</key>", host.enforce ? "      <true/>" : "      <false/>"]
      lines += ["      <key>kTSKIncludeSubdomains</key>", host.includesSubdomains ? "      <true/>" : "      <false/>"]
      lines += ["      <key>kTSKPublicKeyHashes</key>", "      <array>"]
      for key in host.keys {
        lines.append(comment(about(key), indent: "        "))
        lines.append("        <string>\(xml(key.spkiSHA256))</string>")
      }
      lines.append("      </array>")
      if let date = host.expirationDate {
        lines += ["      <key>kTSKExpirationDate</key>", "      <string>\(PinExport.day(date))</string>"]
      }
      if let uri = host.reportURI {
        lines += [
          "      <key>kTSKReportUris</key>", "      <array>", "        <string>\(xml(uri.absoluteString))</string>",
          "      </array>",
        ]
      }
      lines.append("    </dict>")
    }
    lines += ["  </dict>", "</dict>", "</plist>"]
    return lines.joined(separator: "\n") + "\n"
  }

  private static func networkSecurityConfig(_ export: PinExport, header: [String]) -> String {
    var lines = ["<?xml version=\"1.0\" encoding=\"utf-8\"?>"] + header.map { comment($0) }
    lines.append("<network-security-config>")
    for host in export.hosts {
      lines.append("  <domain-config>")
      lines.append("    <domain includeSubdomains=\"\(host.includesSubdomains)\">\(xml(host.host))</domain>")
      let expiration = host.expirationDate.map { " expiration=\"\(PinExport.day($0))\"" } ?? ""
      lines.append("    <pin-set\(expiration)>")
      for key in host.keys {
        lines.append(comment(about(key), indent: "      "))
        lines.append("      <pin digest=\"SHA-256\">\(xml(key.spkiSHA256))</pin>")
      }
      lines += ["    </pin-set>", "  </domain-config>"]
    }
    lines.append("</network-security-config>")
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
      let pattern = host.includesSubdomains ? "**.\(host.host)" : host.host
      for key in host.keys {
        lines.append("    .add(\(kotlin(pattern)), \(kotlin("sha256/" + key.spkiSHA256))) // \(about(key))")
      }
    }
    lines.append("    .build()")
    return lines.joined(separator: "\n") + "\n"
  }
}
