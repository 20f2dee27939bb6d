import CNPinningSession
import Foundation

/// curl's progress meter, simplified: one line on standard error, redrawn five times a second
/// while a download runs ("  3.2 MiB of 10.0 MiB  32%"), and left in place when it ends.
final class ProgressMeter: Sendable {
  private let progress: CNTransferProgress
  private let task: Task<Void, Never>

  private init(_ progress: CNTransferProgress, task: Task<Void, Never>) {
    self.progress = progress
    self.task = task
  }

  /// Starts redrawing; call `finish()` when the transfer ends.
  static func start(_ progress: CNTransferProgress) -> ProgressMeter {
    let task = Task {
      while !Task.isCancelled {
        draw(progress)
        try? await Task.sleep(nanoseconds: 200_000_000)
      }
    }
    return ProgressMeter(progress, task: task)
  }

  /// Stops redrawing and ends the line with the final figures.
  func finish() async {
    task.cancel()
    _ = await task.value
    Self.draw(progress)
    FileHandle.standardError.write(Data("\n".utf8))
  }

  private static func draw(_ progress: CNTransferProgress) {
    let received = progress.receivedBytes
    var line = "\r  \(size(received))"
    if let expected = progress.expectedBytes, expected > 0 {
      line += " of \(size(expected))  \(min(100, received * 100 / expected))%"
    }
    FileHandle.standardError.write(Data((line + "   ").utf8))
  }

  /// "812 B", "3.2 KiB", "10.0 MiB", "1.5 GiB".
  static func size(_ bytes: Int) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
  }
}
