import Foundation

/// Side-by-side timing: the two workloads run in alternating rounds in one process, and each
/// reports the median of its rounds, so machine noise affects both alike.
enum Measure {
  static func nanoseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
  }

  /// Median time per iteration (ns) of `a` and of `b`, over `rounds` alternating rounds.
  static func sideBySide(rounds: Int = 15, iterations: Int, _ a: () -> Void, _ b: () -> Void) -> (Double, Double) {
    var timesA: [Double] = []
    var timesB: [Double] = []
    a()
    b()
    for round in 0..<rounds {
      if round % 2 == 0 {
        timesA.append(nanoseconds { for _ in 0..<iterations { a() } } / Double(iterations))
        timesB.append(nanoseconds { for _ in 0..<iterations { b() } } / Double(iterations))
      } else {
        timesB.append(nanoseconds { for _ in 0..<iterations { b() } } / Double(iterations))
        timesA.append(nanoseconds { for _ in 0..<iterations { a() } } / Double(iterations))
      }
    }
    return (median(timesA), median(timesB))
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
  }

  static func format(_ nanoseconds: Double) -> String {
    if nanoseconds >= 1_000_000 { return String(format: "%.2f ms", nanoseconds / 1_000_000) }
    if nanoseconds >= 1_000 { return String(format: "%.2f µs", nanoseconds / 1_000) }
    return String(format: "%.0f ns", nanoseconds)
  }
}

/// One benchmark's outcome against its target.
struct Outcome {
  let name: String
  let detail: String
  let ratio: Double
  let target: Double
  var met: Bool { ratio <= target }

  func print() {
    Swift.print(
      String(format: "%@: %@ → ratio %.3f (target ≤ %.2f) %@", name, detail, ratio, target, met ? "MET" : "MISSED"))
  }
}

/// Keeps results alive so the optimiser cannot drop the work.
nonisolated(unsafe) var blackHole = 0
