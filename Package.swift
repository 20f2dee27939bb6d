// swift-tools-version: 6.1
import PackageDescription

/// OpenSSL and libcurl back the Linux implementation; Apple platforms use Security/CryptoKit.
let linuxOnly = TargetDependencyCondition.when(platforms: [Platform.linux])
/// The one condition for the Linux implementation: `#if CNPINNING_LINUX_BACKEND` in the sources.
/// `make apple-check` compiles the sources on Linux without it, so they take their Apple branches.
let linuxBackend: [SwiftSetting] = [.define("CNPINNING_LINUX_BACKEND", .when(platforms: [.linux]))]

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
      dependencies: [.target(name: "COpenSSL", condition: linuxOnly)],
      // Apple's privacy manifest, in the package's bundle as App Store Connect reads it.
      resources: [.copy("PrivacyInfo.xcprivacy")],
      swiftSettings: linuxBackend
    ),
    // libcurl and OpenSSL for the session on Linux, behind plain values and closures: the only
    // session code that imports a C module, with no public API of its own.
    .target(
      name: "CNPinningCurl",
      dependencies: [
        "CNPinning",
        .target(name: "COpenSSL", condition: linuxOnly),
        .target(name: "CCurl", condition: linuxOnly),
        .target(name: "CNPinningShims", condition: linuxOnly),
        .target(name: "CNPinningCurlShims", condition: linuxOnly),
      ],
      swiftSettings: linuxBackend
    ),
    // The pinned HTTPS client: the public session API, the engine, verdicts, cookies, streaming,
    // the URLSession transport and bridges; libcurl on Linux.
    .target(
      name: "CNPinningSession",
      dependencies: ["CNPinning", .target(name: "CNPinningCurl", condition: linuxOnly)],
      resources: [.copy("PrivacyInfo.xcprivacy")],
      swiftSettings: linuxBackend
    ),
    .target(
      name: "CNPinningTestKit",
      dependencies: [
        "CNPinning",
        .target(name: "COpenSSL", condition: linuxOnly),
        .target(name: "CNPinningShims", condition: linuxOnly),
      ],
      swiftSettings: linuxBackend
    ),
    .executableTarget(
      name: "cnpin",
      dependencies: ["CNPinning", "CNPinningSession"],
      swiftSettings: linuxBackend
    ),
    // The offline demonstration (`make demo`), apart from cnpin so that the shipped tool does not
    // carry the test kit.
    .executableTarget(
      name: "cnpin-demo",
      dependencies: ["CNPinning", "CNPinningSession", "CNPinningTestKit"],
      swiftSettings: linuxBackend
    ),
    // Lints a target's pinning configurations as it builds: an error fails the build.
    .plugin(name: "CNPinLint", capability: .buildTool(), dependencies: ["cnpin"]),
    .testTarget(name: "CNPinningTests", dependencies: ["CNPinning", "CNPinningTestKit"], swiftSettings: linuxBackend),
    .testTarget(
      name: "CNPinningTestKitTests", dependencies: ["CNPinning", "CNPinningTestKit"], swiftSettings: linuxBackend),
    .testTarget(
      name: "cnpinTests", dependencies: ["cnpin", "cnpin-demo", "CNPinning", "CNPinningTestKit"],
      swiftSettings: linuxBackend),
    .testTarget(
      name: "CNPinningCurlTests", dependencies: [.target(name: "CNPinningCurl", condition: linuxOnly)],
      swiftSettings: linuxBackend),
    .testTarget(
      name: "CNPinningSessionTests",
      dependencies: [
        "CNPinning", "CNPinningSession", .target(name: "CNPinningCurl", condition: linuxOnly),
        .target(name: "CCurl", condition: linuxOnly), "CNPinningTestKit",
      ],
      swiftSettings: linuxBackend),
  ],
  swiftLanguageModes: [.v6]
)
