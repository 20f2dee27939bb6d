import Foundation
import PackagePlugin

/// Runs `cnpin lint` on every pinning configuration of a target as the target builds, so that a
/// configuration that can never load or match (an unknown key or link type, an empty value, a
/// duplicate host, a hash pin without a backup, a chain written leaf → root) fails the build
/// instead of failing open or locking users out at run time.
///
/// A pinning configuration is a `.plist` or `.json` file of the target (a resource, say) that
/// mentions `PinnedDomains`: CNPinning's own documents and Apple's `NSPinnedDomains` alike. Root
/// links are not checked against trust anchors (`--trust none`): the build machine's trust store
/// is not the device's. Warnings and notes are printed and do not fail the build.
@main
struct CNPinLint: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let cnpin = try context.tool(named: "cnpin").url
    let configurations = target.sourceFiles.map(\.url).filter(Self.isPinningConfiguration).sorted { $0.path < $1.path }
    return configurations.enumerated().map { index, file in
      // A Swift file the target compiles, written only when the lint finds no error: the build
      // needs it, so it runs the lint first, and stops when the lint fails.
      let stamp = context.pluginWorkDirectoryURL.appending(
        path: "CNPinLint-\(index)-\(file.deletingPathExtension().lastPathComponent).swift")
      return .buildCommand(
        displayName: "Linting the pins in \(file.lastPathComponent)", executable: cnpin,
        arguments: ["lint", file.path, "--trust", "none", "--stamp", stamp.path], inputFiles: [file], outputFiles: [stamp])
    }
  }

  /// A `.plist` or `.json` file that mentions `PinnedDomains`, or one that cannot be read (the
  /// lint then says why and fails the build, rather than the file going unchecked).
  static func isPinningConfiguration(_ file: URL) -> Bool {
    guard ["plist", "json"].contains(file.pathExtension.lowercased()) else { return false }
    guard let data = FileManager.default.contents(atPath: file.path) else { return true }
    return data.range(of: Data("PinnedDomains".utf8)) != nil
  }
}
