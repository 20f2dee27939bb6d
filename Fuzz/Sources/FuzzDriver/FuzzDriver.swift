import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzer(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

/// Starts libFuzzer's driver on `target`. SwiftPM supplies each executable's main (renamed at
/// link time), so the fuzz targets cannot use libFuzzer's own main and call this instead.
public func runFuzzing(_ target: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Never {
  var argumentCount = CommandLine.argc
  var arguments = CommandLine.unsafeArgv
  exit(runFuzzer(&argumentCount, &arguments, target))
}
