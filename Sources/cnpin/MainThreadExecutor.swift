// Linux only: task executors need macOS 15 (the package supports 13); the Apple build keeps
// the async main.
#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Dispatch

/// Runs the jobs of the tasks that prefer it on the thread that calls `run()`: cnpin's main
/// thread, as curl's work runs on its one thread. A command then starts no thread pool, nor
/// Dispatch's manager thread (docs/decisions/cnpin.md, "Process start").
final class MainThreadExecutor: TaskExecutor {
  private let jobs = Locked<[UnownedJob]>([])
  private let ready = DispatchSemaphore(value: 0)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    ready.signal()
  }

  /// Runs jobs as they come, for the rest of the process (a command ends with `exit`).
  func run() -> Never {
    while true {
      ready.wait()
      let job = jobs.withLock { $0.removeFirst() }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
#endif
