import CNPinning
import CNPinningTestKit
import Foundation

// The loaders' budget: no input under 1 MiB may take more than 64 MiB or one second. Time: runs
// each loader once on each of the worst inputs we know how to write (BudgetInputs), in a release
// build without sanitizers (scripts/fuzz.sh), and exits 1 if one takes more than a second.
// Memory: `FuzzBudget write DIR` writes the same inputs for the raw fuzz targets, whose driver
// counts every heap byte an input holds at once (FuzzDriver, address-sanitizer build).

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "write" {
  try BudgetInputs.write(to: URL(fileURLWithPath: CommandLine.arguments[2]))
  exit(0)
}

let timeBudget = 1.0

var overBudget: [String] = []
@MainActor func measure(_ loader: String, _ name: String, size: Int, _ body: () -> Void) {
  let start = DispatchTime.now()
  body()
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
  if seconds > timeBudget { overBudget.append("\(loader) \(name)") }
  print("budget: \(loader) \(name) (\(size) bytes): \(Int(seconds * 1000)) ms\(seconds > timeBudget ? "  OVER BUDGET" : "")")
}

for (name, bytes) in BudgetInputs.configurations() {
  let data = Data(bytes)
  measure("configuration", name, size: bytes.count) { _ = try? CNPinningDocument(data: data) }
  measure("lint", name, size: bytes.count) { _ = CNConfigurationLinter.lint(data: data) }
  if let document = try? CNPinningDocument(data: data) {
    measure("manager", name, size: bytes.count) { _ = CNPinningManager(document: document) }
  }
}
for (name, bytes) in BudgetInputs.certificates() {
  measure("certificate", name, size: bytes.count) { _ = try? CNCertificate(derEncoded: bytes) }
}
let signer = try CNPolicySigner(privateKeyPEM: try TestPrivateKey.generate(.p256).pemEncoded)
let moment = Date(timeIntervalSince1970: 1_800_000_000)
for (name, payload) in BudgetInputs.policyPayloads() {
  let token = Data(try signer.sign(payload: Data(payload)).utf8)
  measure("policy", name, size: token.count) {
    _ = try? CNEnterprisePolicy(token: token, key: signer.verificationKey, at: moment)
  }
}
for (name, token) in BudgetInputs.unsignedTokens() {
  measure("policy", name, size: token.count) {
    _ = try? CNEnterprisePolicy(token: Data(token), key: signer.verificationKey, at: moment)
  }
}
for (name, bytes) in BudgetInputs.hostNames() {
  let host = String(decoding: bytes, as: UTF8.self)
  let manager = try CNPinningManager(configuration: ["example.com": CNConfiguration([CNChain([CNChainLink(.exact, "Root")])])])
  measure("host", name, size: bytes.count) { _ = manager.evaluate(host: host, chain: []) }
}
if !overBudget.isEmpty {
  print("budget: over the \(timeBudget) s budget: \(overBudget.joined(separator: ", "))")
  exit(1)
}
