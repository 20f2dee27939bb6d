// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// A signing key pair for tests: RSA keys are shared per process (slow to generate).
struct PolicyKeyPair {
  let privateKey: TestPrivateKey
  let privatePEM: String
  let publicKey: CNPolicySigningKey

  init(_ type: TestKeyType, slot: Int = 40) throws {
    privateKey = try TestPrivateKey.shared(type, slot: slot)
    privatePEM = try privateKey.pemEncoded
    publicKey = try CNPolicySigningKey(pemEncoded: try privateKey.publicKeyPEM)
  }

  func sign(_ payload: String, _ algorithm: CNJWSAlgorithm? = nil) throws -> Data {
    Data(try CNPolicySigner(privateKeyPEM: privatePEM).sign(payload: Data(payload.utf8), algorithm: algorithm).utf8)
  }
}

/// The key type each algorithm needs.
func keyType(for algorithm: CNJWSAlgorithm) -> TestKeyType {
  switch algorithm {
  case .es256: return .p256
  case .es384: return .p384
  case .es512: return .p521
  default: return .rsa2048
  }
}

/// A payload valid now, with `hosts` as extra members (JSON text after the claims).
func policyPayload(
  issuedAt: Date = Date().addingTimeInterval(-60), lifetime: TimeInterval = 3600,
  _ hosts: String = #""*": [[{"type": "exact", "value": "Inspection Root"}, {"type": "suffix", "value": ".test"}]]"#
) -> String {
  #"{"iat": \#(Int(issuedAt.timeIntervalSince1970)), "exp": \#(Int(issuedAt.timeIntervalSince1970 + lifetime)), \#(hosts)}"#
}

/// Runs python3 with `script`, passing `arguments`; returns standard output.
func python(_ script: String, _ arguments: [String] = []) async throws -> String {
  let python = await TestProcess.python3()
  let run = try await TestProcess.run(python.executable, python.arguments + ["-c", script] + arguments)
  #expect(run.status == 0, "python failed: \(String(decoding: run.stderr, as: UTF8.self))")
  return String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The error a policy operation threw, as `CNPolicyError`.
func policyError(_ body: () throws -> Void) -> CNPolicyError? {
  do {
    try body()
    Issue.record("expected a policy error")
    return nil
  } catch let error as CNPolicyError {
    return error
  } catch {
    Issue.record("unexpected error \(type(of: error)): \(error)")
    return nil
  }
}

func base64url(_ text: String) -> String { base64url(Data(text.utf8)) }
func base64url(_ data: Data) -> String {
  data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    .replacingOccurrences(of: "=", with: "")
}

extension CNPolicyError {
  var isOlderThanAccepted: Bool { code == .olderThanAcceptedPolicy }
  var isReissuedWithDifferentContent: Bool { code == .reissuedWithDifferentContent }
}
#endif
