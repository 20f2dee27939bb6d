#if os(Linux)
import CNPinningTestKit
import Foundation

// Release-mode benchmarks. Each line compares two workloads measured side by side in this run.
print("CNPinning benchmarks (release build, medians of alternating rounds)")
var outcomes: [Outcome] = []
do {
  outcomes.append(
    try EvaluateBenchmark.run(
      label: "RSA-4096 root, RSA-2048 intermediate, P-256 leaf", rootKey: .rsa4096, intermediateKey: .rsa2048, leafKey: .p256))
  outcomes.last!.print()
  outcomes.append(try EvaluateBenchmark.run(label: "P-256 throughout", rootKey: .p256, intermediateKey: .p256, leafKey: .p256))
  outcomes.last!.print()
  outcomes.append(try ResolutionBenchmark.run())
  outcomes.last!.print()
  outcomes.append(try PlistLoadBenchmark.run())
  outcomes.last!.print()
  outcomes.append(try await SessionBenchmark.run())
  outcomes.last!.print()
} catch {
  print("benchmark failed: \(error)")
  exit(2)
}
let missed = outcomes.filter { !$0.met }
print(missed.isEmpty ? "All \(outcomes.count) targets met." : "\(missed.count) of \(outcomes.count) targets missed.")
exit(missed.isEmpty ? 0 : 1)
#else
print("The benchmarks run on Linux (OpenSSL and libcurl).")
#endif
