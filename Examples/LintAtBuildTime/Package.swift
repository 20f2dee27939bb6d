// swift-tools-version: 6.1
import PackageDescription

// The CNPinLint build-tool plugin on a target whose resources hold its pins: `swift build` lints
// pins.json first and fails on any error the linter reports.
let package = Package(
  name: "LintAtBuildTime",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "CNPinning", path: "../..")],
  targets: [
    .target(
      name: "Pins",
      dependencies: [.product(name: "CNPinning", package: "CNPinning")],
      resources: [.copy("pins.json")],
      plugins: [.plugin(name: "CNPinLint", package: "CNPinning")])
  ]
)
