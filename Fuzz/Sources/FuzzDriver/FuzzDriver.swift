import Foundation
import FuzzAllocationBudget

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzer(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The memory one input may use on top of what was allocated before it: the loaders' budget
/// ("no input under 1 MiB may take more than 64 MiB"), checked on every input the fuzzer runs.
/// The time budget is libFuzzer's `-timeout` (one second in `scripts/fuzz.sh`).
public let memoryBudget = 64 << 20

nonisolated(unsafe) private var fuzzTarget: ([UInt8]) -> Void = { _ in }
/// FUZZ_REPORT_PEAK=1 prints each input's peak allocation (for the budget check's report).
private let reportsPeak = ProcessInfo.processInfo.environment["FUZZ_REPORT_PEAK"] == "1"

/// Starts libFuzzer's driver on `target`, which gets each input's bytes. SwiftPM supplies each
/// executable's main (renamed at link time), so the fuzz targets cannot use libFuzzer's own main
/// and call this instead. In address-sanitizer builds each input's peak allocation is measured;
/// an input over `memoryBudget` stops the run as a crash, so libFuzzer keeps it.
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
      if reportsPeak { FileHandle.standardError.write(Data("fuzz: \(size) bytes, peak \(used >> 10) KiB\n".utf8)) }
      if used > memoryBudget {
        FileHandle.standardError.write(
          Data("fuzz: an input of \(size) bytes took \(used >> 20) MiB, more than the \(memoryBudget >> 20) MiB budget\n".utf8))
        abort()
      }
      return 0
    })
}
