import Foundation

/// A value guarded by a lock, usable from any thread. Portable to every platform the package
/// supports (unlike `Synchronization.Mutex`, which needs the newest Apple OS releases).
///
/// The lock is a `pthread_mutex_t` of its own allocation (an address that never moves), which
/// ThreadSanitizer sees: Foundation's `NSLock` on Linux makes three allocations and a condition
/// variable for `lock(before:)`, which nothing here uses, and the session makes several of these
/// a request.
// Unchecked Sendable: every access to the value goes through the lock.
package final class Locked<Value>: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var value: Value

  package init(_ value: Value) {
    self.value = value
    mutex.initialize(to: pthread_mutex_t())
    let status = pthread_mutex_init(mutex, nil)
    precondition(status == 0, "pthread_mutex_init failed: \(status)")
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
