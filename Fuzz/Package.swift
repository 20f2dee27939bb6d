// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for CNPinning's input parsers. Opt-in: built only by `make fuzz`, with
// `-sanitize=fuzzer,address` applied to every Swift module (CNPinning's included, for coverage).
let libraries: [Target.Dependency] = [
  .product(name: "CNPinning", package: "CNPinning"),
  .product(name: "CNPinningTestKit", package: "CNPinning"),
]
let fuzzTarget: [Target.Dependency] = libraries + ["FuzzDriver", "FuzzKit"]

let package = Package(
  name: "CNPinningFuzz",
  dependencies: [.package(name: "CNPinning", path: "..")],
  targets: [
    .target(name: "FuzzAllocationBudget"),
    .target(name: "FuzzDriver", dependencies: ["FuzzAllocationBudget"]),
    // Structure-aware generators (bplist, XML, JSON, DER, JWS) and the checks every target makes.
    .target(name: "FuzzKit", dependencies: libraries),
    // On raw bytes.
    .executableTarget(name: "FuzzCertificate", dependencies: fuzzTarget),
    .executableTarget(name: "FuzzConfiguration", dependencies: fuzzTarget),
    .executableTarget(name: "FuzzPolicy", dependencies: fuzzTarget),
    .executableTarget(name: "FuzzHostName", dependencies: fuzzTarget),
    // On generated documents.
    .executableTarget(name: "FuzzCertificateStructure", dependencies: fuzzTarget),
    .executableTarget(name: "FuzzConfigurationStructure", dependencies: fuzzTarget),
    .executableTarget(name: "FuzzPolicyStructure", dependencies: fuzzTarget),
    // Writes the seed corpora; renders generated documents for the regression inputs.
    .executableTarget(name: "FuzzCorpusGenerator", dependencies: libraries + ["FuzzKit"]),
    // Checks the loaders' time and memory budget on the worst inputs we know (built without sanitizers).
    .executableTarget(name: "FuzzBudget", dependencies: libraries + ["FuzzKit"]),
  ],
  swiftLanguageModes: [.v6]
)
