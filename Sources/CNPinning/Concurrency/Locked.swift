import Foundation

/// A value guarded by a lock, usable from any thread. Portable to every platform the package
/// supports (unlike `Synchronization.Mutex`, which needs the newest Apple OS releases).
// Unchecked Sendable: every access to the value goes through the lock.
package final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  package init(_ value: Value) { self.value = value }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
