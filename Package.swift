// swift-tools-version: 6.1
import PackageDescription

/// OpenSSL and libcurl back the Linux implementation; Apple platforms use Security/CryptoKit.
let linuxOnly = TargetDependencyCondition.when(platforms: [Platform.linux])
/// The one condition for the Linux implementation: `#if CNPINNING_LINUX_BACKEND` in the sources.
/// `make apple-check` compiles the sources on Linux without it, so they take their Apple branches.
let linuxBackend: [SwiftSetting] = [.define("CNPINNING_LINUX_BACKEND", .when(platforms: [.linux]))]

// The session is one tree, Sources/CNPinningSession, compiled as three targets (docs/ARCHITECTURE.md):
// each top-level entry of the tree belongs to exactly one of these lists (`make lint` checks it).
/// The platform-neutral core, which imports no C module: the public value types (re-exported by
/// the session) and the rooms of the request, cookies, verdict, effects, streaming, the engine
/// and the seam every transport implements.
let sessionCore = [
  "CNCertificateProfile.swift", "CNConnectionEvent.swift", "CNHostOverride.swift", "CNHTTPField.swift",
  "CNHTTPRequest.swift", "CNPinnedSessionConfiguration.swift",
  "CNPinnedSessionError.swift", "CNPinnedSessionError+Codes.swift", "CNProbeError.swift", "CNProxy.swift",
  "CNProxyCredentials.swift",
  "CNTransferProgress.swift", "CNTransportSecurity.swift", "CNTransportSecurityException.swift",
  "CNTransportSecurityViolation.swift", "CNTrust.swift", "CNUnpinnedHostPolicy.swift",
  "Cookies", "Effects", "Exchange", "Request", "Streaming", "Verdict", "Transports/HopTransport.swift",
]
/// The public API on top: the session and what extends it, choosing its transport; the URLSession
/// transport (Apple-only, beside its shared parts, which compile and are tested on Linux too) and
/// the Apple `URLSession.cnPinned` bridge; the documentation catalog.
let sessionTop = [
  "CNPinnedSession.swift", "CNPinnedSession+Streaming.swift", "CNPinnedSession+AsyncBytes.swift",
  "CNPinnedSession+Exchange.swift", "CNHTTPResponse.swift",
  "URLSession+CNPinned.swift", "URLSessionConfiguration+CNPinned.swift", "CNTrustEvaluator.swift", "CNTrust+Anchors.swift",
  "Exports.swift", "Transports/URLSession",
  "Bridges/SessionDelegate", "CNPinningSession.docc",
]
/// Linux only: libcurl and the OpenSSL hooks, and the Linux `URLSession.cnPinned` bridge, the only
/// session code that may import a C module.
let sessionLinux = ["Transports/Curl", "Bridges/URLProtocol"]
/// The table scripts/generate-errors.py writes CNPinnedSessionError's shell from, in no target.
let sessionTables = ["CNPinnedSessionError.codes"]

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
      // The error tables scripts/generate-errors.py writes the errors' shells from.
      exclude: [
        "Configuration/CNConfigurationError.codes", "Enterprise/CNPolicyError.codes", "Evaluation/CNPinningError.codes",
        "X509/CNCertificateError.codes",
      ],
      swiftSettings: linuxBackend
    ),
    .target(
      name: "CNPinningSessionCore",
      dependencies: ["CNPinning"],
      path: "Sources/CNPinningSession",
      exclude: sessionTop + sessionLinux + sessionTables
    ),
    .target(
      name: "CNPinningSessionLinux",
      dependencies: [
        "CNPinning",
        "CNPinningSessionCore",
        .target(name: "COpenSSL", condition: linuxOnly),
        .target(name: "CCurl", condition: linuxOnly),
        .target(name: "CNPinningShims", condition: linuxOnly),
        .target(name: "CNPinningCurlShims", condition: linuxOnly),
      ],
      path: "Sources/CNPinningSession",
      exclude: sessionCore + sessionTop + sessionTables,
      swiftSettings: linuxBackend
    ),
    .target(
      name: "CNPinningSession",
      dependencies: [
        "CNPinning",
        "CNPinningSessionCore",
        .target(name: "CNPinningSessionLinux", condition: linuxOnly),
      ],
      path: "Sources/CNPinningSession",
      exclude: sessionCore + sessionLinux + sessionTables,
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
      name: "CNPinningSessionTests",
      dependencies: [
        "CNPinning", "CNPinningSession", "CNPinningSessionCore",
        .target(name: "CNPinningSessionLinux", condition: linuxOnly), "CNPinningTestKit",
      ],
      swiftSettings: linuxBackend),
  ],
  swiftLanguageModes: [.v6]
)
