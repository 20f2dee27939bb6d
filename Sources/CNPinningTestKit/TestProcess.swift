// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import CNPinningShims
@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn, for the test kit's servers and the tests' tools.
/// Foundation's `Process.run` in Swift 6.3.1 reads past the end of `/proc/self/fd` entries and
/// crashed the suite now and then (swift-corelibs-foundation #5472, fixed after 6.3.1).
// Unchecked Sendable: the pid is immutable and the status is behind a lock; the waiting thread owns the pipes.
public final class TestProcess: @unchecked Sendable {
  public let pid: Int32
  private let status = Locked<Int32?>(nil)

  /// What a finished run wrote and how it ended.
  public struct Output: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: Data
  }

  /// Starts `executable` with `arguments` (and `environment` in place of this process's when
  /// given); standard streams are the descriptors given, or /dev/null.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Int32 = -1,
    output: Int32 = -1, error: Int32 = -1
  ) throws {
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer {
      for argument in argv { free(argument) }
      for variable in envp ?? [] { free(variable) }
    }
    var pid: Int32 = 0
    let result = argv.withUnsafeBufferPointer { argvBuffer in
      if let envp {
        return envp.withUnsafeBufferPointer {
          cnp_spawn(executable, argvBuffer.baseAddress, $0.baseAddress, input, output, error, &pid)
        }
      }
      return cnp_spawn(executable, argvBuffer.baseAddress, nil, input, output, error, &pid)
    }
    guard result == 0 else { throw TestKitError(message: "cannot start \(executable): errno \(result)") }
    self.pid = pid
  }

  deinit {
    if isRunning {
      kill(pid, SIGKILL)
      _ = waitForExit()
    }
  }

  /// Whether the child has not exited yet (it is reaped if it has).
  public var isRunning: Bool {
    status.withLock { status in
      guard status == nil else { return false }
      var raw: Int32 = 0
      guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
      status = Self.exitStatus(raw)
      return false
    }
  }

  /// Waits for the child to exit (blocking the calling thread); its exit status, or 128 plus
  /// the signal that ended it.
  @discardableResult
  public func waitForExit() -> Int32 {
    if let known = status.withLock({ $0 }) { return known }
    var raw: Int32 = 0
    while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
    let exit = Self.exitStatus(raw)
    status.withLock { $0 = exit }
    return exit
  }

  public func terminate(_ signal: Int32 = SIGTERM) {
    if isRunning { kill(pid, signal) }
  }

  private static func exitStatus(_ raw: Int32) -> Int32 {
    let signal = raw & 0x7F
    return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
  }

  /// Runs `executable` to its end with `input` on its standard input, collecting both outputs.
  /// The wait happens off the shared threads (see ``offTheSharedThreads(_:)``). A run that takes
  /// longer than `timeout` (at most a year; none when not positive) is killed.
  public static func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data = Data(),
    timeout: TimeInterval = 120
  ) async throws -> Output {
    try await offTheSharedThreads {
      try runBlocking(executable, arguments, environment: environment, input: input, timeout: timeout)
    }
  }

  /// The `python3` the tests run, by its own path: the interpreter `python3` on the PATH names
  /// (`sys.executable`), found once. Version managers put a shell script there (pyenv's shim runs
  /// about eighteen processes before the interpreter); the tests run the interpreter that script
  /// would, with the same packages. Falls back to `python3` through `/usr/bin/env` when it cannot
  /// be asked, so that a missing interpreter fails where it is used.
  public static func python3() async -> (executable: String, arguments: [String]) {
    await offTheSharedThreads { resolvedPython3 }
  }

  private static let resolvedPython3: (executable: String, arguments: [String]) = {
    let asked = try? runBlocking(
      "/usr/bin/env", ["python3", "-c", "import sys; print(sys.executable)"], environment: nil, input: Data(),
      timeout: 60)
    let path = asked.flatMap { $0.status == 0 ? String(decoding: $0.stdout, as: UTF8.self) : nil }?
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard let path, path.hasPrefix("/"), access(path, X_OK) == 0 else { return ("/usr/bin/env", ["python3"]) }
    return (path, [])
  }()

  private static func runBlocking(
    _ executable: String, _ arguments: [String], environment: [String: String]?, input: Data, timeout: TimeInterval
  ) throws -> Output {
    signal(SIGPIPE, SIG_IGN)  // a child that exits before reading its input must not end this process
    var inPipe: [Int32] = [-1, -1]
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    // No close-on-exec needed: every child the test kit starts gets descriptors 0–2 only.
    guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
      for descriptor in inPipe + outPipe + errPipe where descriptor >= 0 { close(descriptor) }
      throw TestKitError(message: "pipe() failed: errno \(errno)")
    }
    let process: TestProcess
    do {
      process = try TestProcess(
        executable, arguments, environment: environment, input: inPipe[0], output: outPipe[1], error: errPipe[1])
    } catch {
      for descriptor in inPipe + outPipe + errPipe { close(descriptor) }
      throw error
    }
    close(inPipe[0])
    close(outPipe[1])
    close(errPipe[1])
    let group = DispatchGroup()
    let collected = Locked((stdout: Data(), stderr: Data()))
    for (descriptor, isOutput) in [(outPipe[0], true), (errPipe[0], false)] {
      group.enter()
      Thread {
        let data = Self.readAll(descriptor)
        close(descriptor)
        collected.withLock { if isOutput { $0.stdout = data } else { $0.stderr = data } }
        group.leave()
      }.start()
    }
    let inputWriter = inPipe[1]
    group.enter()
    Thread {
      input.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let written = write(inputWriter, bytes.baseAddress! + offset, bytes.count - offset)
          guard written > 0 else { break }
          offset += written
        }
      }
      close(inputWriter)
      group.leave()
    }.start()
    if group.wait(timeout: BoundedInterval(timeout)?.deadline() ?? .distantFuture) == .timedOut {
      process.terminate(SIGKILL)
      group.wait()
    }
    let status = process.waitForExit()
    let (stdout, stderr) = collected.withLock { ($0.stdout, $0.stderr) }
    return Output(status: status, stdout: stdout, stderr: stderr)
  }

  /// Starts `executable` with its standard error written to the file at `errorLog` (created
  /// or emptied) and its other streams at /dev/null.
  public static func start(_ executable: String, _ arguments: [String], errorLog: URL) throws -> TestProcess {
    let descriptor = open(errorLog.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw TestKitError(message: "cannot create \(errorLog.path): errno \(errno)") }
    defer { close(descriptor) }
    return try TestProcess(executable, arguments, error: descriptor)
  }

  private static func readAll(_ descriptor: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return data }
      data.append(contentsOf: buffer[..<count])
    }
  }
}
#endif
