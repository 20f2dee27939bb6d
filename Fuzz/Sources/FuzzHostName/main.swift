import Foundation

// libFuzzer's driver runs the target (see FuzzHostName.swift); SwiftPM supplies main, so the driver
// is started from here.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzer(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

var argumentCount = CommandLine.argc
var arguments = CommandLine.unsafeArgv
exit(runFuzzer(&argumentCount, &arguments, fuzzHostName))
