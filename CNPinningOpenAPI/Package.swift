// swift-tools-version: 6.1
import PackageDescription

// A swift-openapi-runtime ClientTransport over CNPinnedSession: a generated OpenAPI client pinned
// on Linux and Apple platforms. A package of its own, so that an app that depends only on
// CNPinning or CNPinningSession resolves nothing new. The two outside packages are named by URL
// from the lowest 1.x whose API the transport uses (ClientTransport and HTTPBody's
// sequence initializer: swift-openapi-runtime 1.0.0; HTTPRequest, HTTPResponse and HTTPFields:
// swift-http-types 1.0.0). Built and tested against them with local clones
// (scripts/openapi-check.sh --real); CI, which cannot fetch them, type-checks Sources, Tests and
// the article's snippet against their public declarations recorded from 1.0.0 (Interfaces/).
let package = Package(
  name: "CNPinningOpenAPI",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [.library(name: "CNPinningOpenAPI", targets: ["CNPinningOpenAPI"])],
  dependencies: [
    .package(name: "CNPinning", path: ".."),
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
  ],
  targets: [
    .target(
      name: "CNPinningOpenAPI",
      dependencies: [
        .product(name: "CNPinningSession", package: "CNPinning"),
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]),
    .testTarget(
      name: "CNPinningOpenAPITests",
      dependencies: ["CNPinningOpenAPI", .product(name: "CNPinningTestKit", package: "CNPinning")]),
  ]
)
