import CNPinningTestKit
import FuzzDriver
import FuzzKit

// The certificate reader on generated certificates (CertificateGenerator), with real keys of
// every type the reader knows among the invented ones.
let realKeys = try! TestKeyType.allCases.map { try TestPrivateKey.shared($0).subjectPublicKeyInfo }
runFuzzing { bytes in
  var input = FuzzInput(bytes)
  Oracles.certificate(CertificateGenerator.generate(&input, realKeys: realKeys))
}
