// snippet.hide
// The DocC article's example (CNPinningAlamofire.docc): type-checked by scripts/apple-check.sh
// against Alamofire's recorded declarations (Interfaces/Alamofire.swift) and the Apple stubs.
// Alamofire evaluates server trust only where Security is: on Linux, where `swift build` builds
// this package's snippets too, there is nothing to show.
#if canImport(Security)
// snippet.show
import Alamofire
import CNPinning
import CNPinningAlamofire
import Foundation

func greeting() async throws -> Data {
  // The pins from the app's Info.plist; hosts they do not pin get Alamofire's default handling.
  let session = Session(serverTrustManager: CNPinningServerTrustManager(manager: try CNPinningManager()))
  let request = URLRequest(url: URL(string: "https://api.example.com/v1/greeting")!)
  do {
    return try await session.request(request).serializingData().value
  } catch AFError.serverTrustEvaluationFailed(reason: .customEvaluationFailed(let refusal as CNServerTrustRefusal)) {
    // The verified chain does not carry the pinned names (or trust failed): refused before the
    // request was sent. `refusal.pinFailure` says which pins, when it was the pins.
    throw refusal
  }
}
// snippet.hide
#endif
