// swift-tools-version: 6.1
import PackageDescription

// A Linux service that calls its upstream through a pinned session. It depends on CNPinning by
// path, as your package would on a clone (name: keeps the identity whatever the clone is called).
let package = Package(
  name: "PinnedService",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "CNPinning", path: "../..")],
  targets: [
    .executableTarget(
      name: "PinnedService",
      dependencies: [
        .product(name: "CNPinning", package: "CNPinning"),
        .product(name: "CNPinningSession", package: "CNPinning"),
      ])
  ]
)
