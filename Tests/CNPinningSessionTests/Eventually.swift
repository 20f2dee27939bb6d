import Foundation

/// Waits (at most `seconds`) until `condition` holds. Platform-neutral: the shared decisions'
/// tests use it on every platform.
func eventually(within seconds: TimeInterval = 5, _ condition: () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    try? await Task.sleep(nanoseconds: 10_000_000)
  }
  return condition()
}
