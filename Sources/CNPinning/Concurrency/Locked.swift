import Foundation

/// A value guarded by a lock, usable from any thread. Portable to every platform the package
/// supports (unlike `Synchronization.Mutex`, which needs the newest Apple OS releases).
///
/// Public as SPI (`@_spi(Locking) import CNPinning`), not package: only a public generic's
/// `@inlinable` body is specialised in the package's other modules, which otherwise called the
/// generic one and looked up its storage's metadata at each lock made (about 3,100 instructions
/// of a request, docs/decisions/session-linux.md).
///
/// The lock is a `pthread_mutex_t` at an address that never moves, which ThreadSanitizer sees
/// (Foundation's `NSLock` on Linux makes three allocations and a condition variable for
/// `lock(before:)`, which nothing here uses). Value and mutex share one allocation: the session
/// makes several of these a request. Copies share the value and the lock, as references do.
// Unchecked Sendable: every access to the value goes through the lock.
@_spi(Locking) public struct Locked<Value>: @unchecked Sendable {
  /// The value as the header, the mutex as the one element, in one object.
  @usableFromInline final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
    deinit {
      _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
  }

  @usableFromInline let storage: Storage

  /// `value` is made in the storage (an autoclosure, evaluated once, here): passed as a value,
  /// a state of many fields (a channel's, a delivery's) was copied in and the original
  /// destroyed, both through its metadata.
  @inlinable public init(_ value: @autoclosure () -> Value) {
    storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value() }, to: Storage.self)
    let status = storage.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      return pthread_mutex_init(mutex, nil)
    }
    precondition(status == 0, "pthread_mutex_init failed: \(status)")
  }

  @inlinable public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try storage.withUnsafeMutablePointers { value, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&value.pointee)
    }
  }
}
