import Foundation

/// Where a request's response body goes.
package enum BodyDestination {
  case memory
  /// A download's file, written as the body arrives.
  case file(FileHandle)
  /// Handed on as it arrives (`bytes(for:)`); the response is delivered when the body starts.
  case channel(ResponseBodyChannel)

  /// Whether the whole body is held in memory: such bodies have the smaller limit
  /// (`maximumResponseBodySize`); a file or a stream read as it arrives has `maximumDownloadSize`.
  package var holdsBody: Bool {
    if case .memory = self { return true }
    return false
  }

  /// Whether the body is read by the caller as it arrives, and so may stall when they stop.
  package var isStreamed: Bool {
    if case .channel = self { return true }
    return false
  }
}
