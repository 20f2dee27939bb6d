import Foundation

extension CNPinningError {
  public var description: String {
    switch kind {
    case .notPinned: "the host has no pins; the app decides what to do"
    case .notServerTrust: "not a server-trust challenge; the app answers it"
    }
  }

  /// Matches a thrown error against a value, so that seed code can `catch CNPinningError.notPinned`.
  public static func ~= (pattern: CNPinningError, error: any Error) -> Bool {
    (error as? CNPinningError) == pattern
  }
}
