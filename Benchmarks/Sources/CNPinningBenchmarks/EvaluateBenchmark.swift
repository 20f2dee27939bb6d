#if os(Linux)
import CNPinning
import CNPinningTestKit

/// `evaluate` on a 3-certificate chain given as DER (reading the certificates included) against
/// OpenSSL's `X509_verify_cert` on the same chain.
enum EvaluateBenchmark {
  static func run(label: String, rootKey: TestKeyType, intermediateKey: TestKeyType, leafKey: TestKeyType) throws
    -> Outcome
  {
    let root = try TestIdentity.root("Bench Root X1", keyType: rootKey)
    let intermediate = try root.issueIntermediate("R11", keyType: intermediateKey)
    let leaf = try intermediate.issueLeaf("api.example.com", dnsNames: ["api.example.com"], keyType: leafKey)
    let chain = leaf.chain
    let ders = chain.map(\.derEncoded)
    let manager = try CNPinningManager(configuration: [
      "api.example.com": CNConfiguration([
        CNChain([
          CNChainLink(.prefixWithNumber, "Bench Root X"), CNChainLink(.prefixWithNumber, "R"),
          CNChainLink(.exact, "api.example.com"),
        ])
      ])
    ])
    let verifier = try OpenSSLChainVerifier(chain: chain, anchors: [root.certificate])
    guard verifier.verify() == nil else { throw TestKitError(message: "the benchmark chain does not verify") }

    let (ours, openSSL) = Measure.sideBySide(
      iterations: 2000,
      {
        let certificates = ders.map { try! CNCertificate(derEncoded: $0) }
        if case .accepted = manager.evaluate(host: "api.example.com", chain: certificates) { blackHole &+= 1 }
      },
      { if verifier.verify() == nil { blackHole &+= 1 } })
    return Outcome(
      name: "evaluate vs X509_verify_cert (\(label))",
      detail: "\(Measure.format(ours)) vs \(Measure.format(openSSL))", ratio: ours / openSSL, target: 0.10)
  }
}
#endif
