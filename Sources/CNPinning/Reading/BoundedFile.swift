import Foundation

/// Reads a file without trusting its size: at most one byte more than a bound, so that a file
/// grown past it is seen as too large without being read whole.
package enum BoundedFile {
  /// The first `maximum + 1` bytes of the file at `url` (fewer when it is shorter).
  package static func read(_ url: URL, maximum: Int) throws -> Data {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    return try handle.read(upToCount: maximum + 1) ?? Data()
  }
}
