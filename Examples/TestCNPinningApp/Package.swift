// swift-tools-version: 6.1
import PackageDescription

// A SwiftUI app shaped like the seed library's TestCNPinningApp: its pins are an Info.plist-style
// file, and Test makes a pinned request. `swift build` / `swift run` on a Mac; on Linux
// `make apple-check` type-checks it against stubs of SwiftUI.
let package = Package(
  name: "TestCNPinningApp",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "CNPinning", path: "../..")],
  targets: [
    .executableTarget(
      name: "TestCNPinningApp",
      dependencies: [
        .product(name: "CNPinning", package: "CNPinning"),
        .product(name: "CNPinningSession", package: "CNPinning"),
      ],
      resources: [.copy("Pinning.plist")])
  ]
)
