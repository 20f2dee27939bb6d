#if CNPINNING_LINUX_BACKEND
import Dispatch

/// The loop as a task executor (SE-0417): a task that prefers it runs its jobs on the network
/// thread, between the loop's turns, so a request it makes is resumed there when libcurl is
/// done, without a hand-off to another thread. Its jobs delay every transfer of the session
/// while they run, so they must not block. Once the session stops, its jobs run on Dispatch's
/// shared threads.
extension CurlMultiLoop: TaskExecutor {
  package func enqueue(_ job: consuming ExecutorJob) {
    enqueue(.run(UnownedJob(job)))
  }

  /// Runs `job` on one of Dispatch's shared threads, as the loop's (it has stopped): a job run as
  /// another executor's would be sent back here by the task's preference.
  func runElsewhere(_ job: UnownedJob) {
    DispatchQueue.global().async { [self] in
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
#endif
