#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the calling thread for the kernel (`/proc/self/task/*/comm`, debuggers, `top -H`).
/// Foundation's `Thread.name`, set before `start()`, never reaches the kernel on Linux.
package enum ThreadName {
  /// Sets the current thread's name; Linux keeps its first 15 bytes.
  package static func setCurrent(_ name: String) {
    #if canImport(Glibc)
    // pthread_setname_np is not visible to Swift here; the kernel's own file for the calling
    // thread does the same.
    let file = open("/proc/thread-self/comm", O_WRONLY)
    guard file >= 0 else { return }
    defer { close(file) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    #elseif canImport(Darwin)
    _ = pthread_setname_np(name)
    #endif
  }
}
