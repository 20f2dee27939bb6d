import CNPinning
import Foundation

/// The plist and JSON configuration loaders: never crash, and a configuration that loads
/// round-trips through both formats (what `cnpin convert` writes) unchanged.

func fuzzConfiguration(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Data(bytes: data, count: size)
  guard let document = try? CNPinningDocument(data: input, baseDirectory: URL(fileURLWithPath: "/nonexistent")) else {
    _ = CNConfigurationLinter.lint(data: input)
    return 0
  }
  for format in CNPinningDocument.Format.allCases {
    let encoded = document.encoded(as: format)
    guard let again = try? CNPinningDocument(data: encoded), again == document else {
      fatalError("a loaded configuration does not round-trip through \(format):\n\(String(decoding: encoded, as: UTF8.self))")
    }
  }
  _ = CNPinningManager(document: document)
  _ = CNConfigurationLinter.lint(document)
  return 0
}
