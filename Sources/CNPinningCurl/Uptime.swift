#if CNPINNING_LINUX_BACKEND
import Glibc

/// The driver's clock: uptime in nanoseconds, the clock of `Uptime.nanoseconds`
/// (`CLOCK_MONOTONIC` on Linux), read straight from the vDSO. The driver reads it about sixteen
/// times a request, and `DispatchTime.now()` cost about 100 instructions a read against 40.
enum Uptime {
  static var nanoseconds: UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
  }
}
#endif
