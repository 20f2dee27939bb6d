// swift-tools-version: 6.1
import PackageDescription

// The benchmarks and the soak, apart from the library's package so that `make test` builds only
// what the tests use: `make bench`, `make bench-peers`, `make bench-load`, `make soak` and
// `make leaks` build them here. The C peer (PeerC/multi-client.c) is built with cc.
let session: [Target.Dependency] = [
  .product(name: "CNPinning", package: "CNPinning"),
  .product(name: "CNPinningSession", package: "CNPinning"),
]
let testKit: Target.Dependency = .product(name: "CNPinningTestKit", package: "CNPinning")

let package = Package(
  name: "CNPinningBenchmarks",
  dependencies: [.package(name: "CNPinning", path: "..")],
  targets: [
    .executableTarget(name: "CNPinningBenchmarks", dependencies: session + [testKit]),
    .executableTarget(name: "CNPinningSoak", dependencies: session + [testKit]),
    .executableTarget(name: "CNPinningLoad", dependencies: session + [testKit]),
    .executableTarget(name: "CNPinningPeerClient", dependencies: session),
    .executableTarget(
      name: "CNPinningPeerBenchmarks",
      dependencies: [.product(name: "CNPinning", package: "CNPinning"), testKit]),
  ],
  swiftLanguageModes: [.v6]
)
