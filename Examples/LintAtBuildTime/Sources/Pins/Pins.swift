import CNPinning
import Foundation

/// The app's pins, from the configuration the build has linted.
public enum Pins {
  /// A manager for pins.json.
  public static func manager() throws -> CNPinningManager {
    guard let url = Bundle.module.url(forResource: "pins", withExtension: "json") else { throw CocoaError(.fileNoSuchFile) }
    return try CNPinningManager(contentsOf: url)
  }
}
