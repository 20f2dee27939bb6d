// swift-tools-version: 6.1
import PackageDescription

// Alamofire's server-trust evaluation by CNPinning's CN-chain pins: an evaluator and a
// ServerTrustManager that finds it by CNPinning's host rules. A package of its own, so that an app
// that does not use Alamofire resolves nothing new. Alamofire evaluates server trust only where
// Security is (Apple platforms). Named from 5.12.0, the release whose public declarations are
// recorded in Interfaces/ (tag and commit there); CI, which cannot fetch Alamofire, type-checks
// Sources and the article's snippet against them with the Apple stubs (scripts/apple-check.sh).
let package = Package(
  name: "CNPinningAlamofire",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [.library(name: "CNPinningAlamofire", targets: ["CNPinningAlamofire"])],
  dependencies: [
    .package(name: "CNPinning", path: ".."),
    .package(url: "https://github.com/Alamofire/Alamofire", from: "5.12.0"),
  ],
  targets: [
    .target(
      name: "CNPinningAlamofire",
      dependencies: [
        .product(name: "CNPinning", package: "CNPinning"),
        .product(name: "CNPinningSession", package: "CNPinning"),
        .product(name: "Alamofire", package: "Alamofire"),
      ])
  ]
)
