// swift-tools-version: 6.1
import PackageDescription

/// OpenSSL and libcurl back the Linux implementation; Apple platforms use Security/CryptoKit.
let linuxOnly = TargetDependencyCondition.when(platforms: [Platform.linux])

let package = Package(
  name: "CNPinning",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .executable(name: "cnpin", targets: ["cnpin"]),
    .library(name: "CNPinning", targets: ["CNPinning"]),
    .library(name: "CNPinningSession", targets: ["CNPinningSession"]),
    .library(name: "CNPinningTestKit", targets: ["CNPinningTestKit"]),
    .plugin(name: "CNPinLint", targets: ["CNPinLint"]),
  ],
  targets: [
    .systemLibrary(
      name: "COpenSSL",
      pkgConfig: "openssl",
      providers: [.apt(["libssl-dev"])]
    ),
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"])]
    ),
    // OpenSSL macros, for the session and the test kit.
    .target(
      name: "CNPinningShims",
      dependencies: [.target(name: "COpenSSL", condition: linuxOnly)]
    ),
    // libcurl's variadic functions, for the session only.
    .target(
      name: "CNPinningCurlShims",
      dependencies: [
        .target(name: "COpenSSL", condition: linuxOnly),
        .target(name: "CCurl", condition: linuxOnly),
      ]
    ),
    .target(
      name: "CNPinning",
      dependencies: [.target(name: "COpenSSL", condition: linuxOnly)]
    ),
    .target(
      name: "CNPinningSession",
      dependencies: [
        "CNPinning",
        .target(name: "COpenSSL", condition: linuxOnly),
        .target(name: "CCurl", condition: linuxOnly),
        .target(name: "CNPinningShims", condition: linuxOnly),
        .target(name: "CNPinningCurlShims", condition: linuxOnly),
      ]
    ),
    .target(
      name: "CNPinningTestKit",
      dependencies: [
        "CNPinning",
        .target(name: "COpenSSL", condition: linuxOnly),
        .target(name: "CNPinningShims", condition: linuxOnly),
      ]
    ),
    .executableTarget(
      name: "cnpin",
      dependencies: ["CNPinning", "CNPinningSession"]
    ),
    // The offline demonstration (`make demo`), apart from cnpin so that the shipped tool does not
    // carry the test kit.
    .executableTarget(
      name: "cnpin-demo",
      dependencies: ["CNPinning", "CNPinningSession", "CNPinningTestKit"]
    ),
    // Lints a target's pinning configurations as it builds: an error fails the build.
    .plugin(name: "CNPinLint", capability: .buildTool(), dependencies: ["cnpin"]),
    .testTarget(name: "CNPinningTests", dependencies: ["CNPinning", "CNPinningTestKit"]),
    .testTarget(name: "CNPinningTestKitTests", dependencies: ["CNPinning", "CNPinningTestKit"]),
    .testTarget(name: "cnpinTests", dependencies: ["cnpin", "cnpin-demo", "CNPinning", "CNPinningTestKit"]),
    .testTarget(
      name: "CNPinningSessionTests", dependencies: ["CNPinning", "CNPinningSession", "CNPinningTestKit"]),
  ],
  swiftLanguageModes: [.v6]
)
