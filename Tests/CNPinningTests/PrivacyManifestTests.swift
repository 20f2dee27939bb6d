import Foundation
import Testing

/// The Apple targets' privacy manifests (issue 54, item 3) say what their code does: every
/// required-reason API the sources call is declared with a reason, none is declared that the
/// sources do not call, and the session, which uploads failure reports, declares them as
/// diagnostic data not linked to the user and used for no tracking.
@Suite("Privacy manifests")
struct PrivacyManifestTests {
  /// Apple's required-reason API categories, each with the spellings that call it from Swift
  /// (developer.apple.com, "Describing use of required reason API").
  static let categories: [(category: String, calls: [String])] = [
    (
      "NSPrivacyAccessedAPICategoryFileTimestamp",
      [
        "attributesOfItem", "creationDate", "modificationDate", "contentModificationDateKey", "creationDateKey", "fstat(",
        "stat(",
      ]
    ),
    ("NSPrivacyAccessedAPICategorySystemBootTime", ["systemUptime", "mach_absolute_time"]),
    ("NSPrivacyAccessedAPICategoryDiskSpace", ["volumeAvailableCapacity", "systemFreeSize", "statfs", "statvfs"]),
    ("NSPrivacyAccessedAPICategoryActiveKeyboards", ["activeInputModes"]),
    ("NSPrivacyAccessedAPICategoryUserDefaults", ["UserDefaults"]),
  ]

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The Swift sources of `target` that an Apple build compiles (not the Linux-only libcurl code).
  static func sources(of target: String) throws -> String {
    let folder = root.appendingPathComponent("Sources/\(target)")
    var text = ""
    for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) ?? .init()
    where url.pathExtension == "swift" {
      let source = try String(contentsOf: url, encoding: .utf8)
      if source.hasPrefix("#if CNPINNING_LINUX_BACKEND") { continue }
      text += source
    }
    return text
  }

  static func manifest(of target: String) throws -> [String: Any] {
    let data = try Data(contentsOf: root.appendingPathComponent("Sources/\(target)/PrivacyInfo.xcprivacy"))
    return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
  }

  @Test(arguments: ["CNPinning", "CNPinningSession"])
  func everyRequiredReasonAPICalledIsDeclaredAndNoOther(_ target: String) throws {
    let manifest = try Self.manifest(of: target)
    #expect(manifest["NSPrivacyTracking"] as? Bool == false)
    #expect((manifest["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
    let declared = (manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]] ?? []).compactMap { entry -> String? in
      #expect((entry["NSPrivacyAccessedAPITypeReasons"] as? [String])?.isEmpty == false)
      return entry["NSPrivacyAccessedAPIType"] as? String
    }
    let source = try Self.sources(of: target)
    let called = Self.categories.filter { category in category.calls.contains { source.contains($0) } }.map(\.category)
    #expect(Set(declared) == Set(called), "declared \(declared), called \(called)")
  }

  @Test func theSessionDeclaresItsReportUploadsAsUnlinkedDiagnostics() throws {
    let collected = try Self.manifest(of: "CNPinningSession")["NSPrivacyCollectedDataTypes"] as? [[String: Any]]
    let entry = try #require(collected?.first)
    #expect(collected?.count == 1)
    #expect(entry["NSPrivacyCollectedDataType"] as? String == "NSPrivacyCollectedDataTypeOtherDiagnosticData")
    #expect(entry["NSPrivacyCollectedDataTypeLinked"] as? Bool == false)
    #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false)
    #expect(entry["NSPrivacyCollectedDataTypePurposes"] as? [String] == ["NSPrivacyCollectedDataTypePurposeAppFunctionality"])
    // It is the session that uploads; the pins library collects nothing.
    #expect(try Self.sources(of: "CNPinningSession").contains("ReportUploader"))
    #expect((try Self.manifest(of: "CNPinning")["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
  }
}
