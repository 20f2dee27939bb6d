// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for CNPinning's input parsers. Opt-in: built only by `make fuzz`, with
// `-sanitize=fuzzer,address` applied to every Swift module (CNPinning's included, for coverage).
let libraries: [Target.Dependency] = [
  .product(name: "CNPinning", package: "CNPinning"),
  .product(name: "CNPinningTestKit", package: "CNPinning"),
  "FuzzDriver",
]

let package = Package(
  name: "CNPinningFuzz",
  dependencies: [.package(name: "CNPinning", path: "..")],
  targets: [
    .target(name: "FuzzDriver"),
    .executableTarget(name: "FuzzCertificate", dependencies: libraries),
    .executableTarget(name: "FuzzConfiguration", dependencies: libraries),
    .executableTarget(name: "FuzzPolicy", dependencies: libraries),
    .executableTarget(name: "FuzzHostName", dependencies: libraries),
    // Writes the seed corpora (built without the fuzzer flags).
    .executableTarget(name: "FuzzCorpusGenerator", dependencies: libraries),
  ],
  swiftLanguageModes: [.v6]
)
