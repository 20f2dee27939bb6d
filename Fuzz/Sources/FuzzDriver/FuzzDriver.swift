import Foundation
import FuzzAllocationBudget

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzer(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The memory one input may use on top of what was allocated before it, and the CPU time it may
/// take: the loaders' budget ("no input under 1 MiB may take more than 64 MiB or one second"),
/// checked on every input the fuzzer runs. CPU time, not wall time: on a loaded machine (or
/// while the sanitizer recycles its quarantine) a fast input can wait longer than a second.
/// libFuzzer's `-timeout` catches hangs.
public let memoryBudget = 64 << 20
public let timeBudget = 1.0

nonisolated(unsafe) private var fuzzTarget: ([UInt8]) -> Void = { _ in }
/// FUZZ_MEMORY_REPORT=1 prints each input's peak allocation and checks only the memory budget:
/// the budget check's 1 MiB inputs are timed by FuzzBudget in a release build instead (the
/// sanitizer makes them several times slower than an app would).
private let memoryReport = ProcessInfo.processInfo.environment["FUZZ_MEMORY_REPORT"] == "1"

/// Starts libFuzzer's driver on `target`, which gets each input's bytes. SwiftPM supplies each
/// executable's main (renamed at link time), so the fuzz targets cannot use libFuzzer's own main
/// and call this instead. Each input's CPU time and (in address-sanitizer builds) peak allocation
/// are measured; an input over budget stops the run as a crash, so libFuzzer keeps it.
public func runFuzzing(_ target: @escaping ([UInt8]) -> Void) -> Never {
  fuzzTarget = target
  _ = fuzz_budget_install()
  var argumentCount = CommandLine.argc
  var arguments = CommandLine.unsafeArgv
  exit(
    runFuzzer(&argumentCount, &arguments) { data, size in
      let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
      let before = fuzz_budget_begin()
      fuzzTarget(bytes)
      let used = fuzz_budget_peak() - before
      let seconds = fuzz_budget_cpu_seconds()
      if memoryReport { FileHandle.standardError.write(Data("fuzz: \(size) bytes, peak \(used >> 10) KiB\n".utf8)) }
      if used > memoryBudget {
        FileHandle.standardError.write(
          Data("fuzz: an input of \(size) bytes took \(used >> 20) MiB, more than the \(memoryBudget >> 20) MiB budget\n".utf8))
        abort()
      }
      if seconds > timeBudget, !memoryReport {
        FileHandle.standardError.write(
          Data("fuzz: an input of \(size) bytes took \(seconds) s of CPU, more than the \(timeBudget) s budget\n".utf8))
        abort()
      }
      return 0
    })
}
