// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import Dispatch

/// Runs `body` in the calling task, but on a thread of its own rather than on the shared
/// cooperative threads (as many as the machine has cores) that every async test and every
/// session's callers run on.
///
/// For test bodies that block or compute for long: starting processes and waiting for them,
/// RSA key generation, thousands of verifications. On a two-core machine two such tests on the
/// shared threads stop every other test's async work, and a busy machine makes that a minute,
/// longer than nginx's 60 s `send_timeout` for a stalled reader. The body stays in the task, so
/// `#expect` and task-local values work in it as in the test.
public func offTheSharedThreads<T>(_ body: () async throws -> T) async rethrows -> T {
  try await withTaskExecutorPreference(OwnQueueExecutor(), operation: body)
}

/// A task executor with a serial queue of its own. Serial queues run on libdispatch's
/// overcommitting threads, which are not the cooperative pool: a busy pool does not delay them,
/// and a job blocking here delays nothing else.
private final class OwnQueueExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "CNPinningTestKit.offTheSharedThreads")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
#endif
