import CNPinningTestKit
import Foundation

@testable import CNPinning

/// What must hold for every input, whichever target (raw bytes or generated) produced it.
public enum Oracles {
  /// The DER certificate reader never crashes, and a certificate it accepts is read as OpenSSL
  /// reads it (or OpenSSL refuses it too): the same number of CNs, every CN our reader decodes
  /// equal to OpenSSL's reading (refusing to decode one is allowed: the reader is stricter), and
  /// the same SPKI hash.
  public static func certificate(_ bytes: [UInt8]) {
    guard let certificate = try? CNCertificate(derEncoded: bytes) else { return }
    guard let reference = try? OpenSSLReference.read(bytes) else { return }
    func agree(_ ours: [String?], _ theirs: [String?]) -> Bool {
      ours.count == theirs.count && zip(ours, theirs).allSatisfy { mine, openSSL in mine == nil || mine == openSSL }
    }
    guard agree(certificate.subjectCommonNameValues, reference.subjectCommonNames),
      agree(certificate.issuerCommonNameValues, reference.issuerCommonNames),
      certificate.spkiSHA256Base64 == reference.spkiSHA256Base64
    else {
      fatalError(
        "the reader and OpenSSL disagree: \(certificate.subjectCommonNameValues) / \(certificate.issuerCommonNameValues) vs \(reference.subjectCommonNames) / \(reference.issuerCommonNames)"
      )
    }
    _ = certificate.publicKeyKind
    _ = certificate.signatureHash
  }

  /// The plist and JSON configuration loaders never crash, and a configuration that loads
  /// round-trips through both formats (what `cnpin convert` writes) unchanged: the same entries,
  /// and no warning the original did not have (the writers spell out defaults, such as a link's
  /// type, so a warning about one left out goes away).
  public static func configuration(_ bytes: [UInt8]) {
    let input = Data(bytes)
    guard let document = try? CNPinningDocument(data: input, baseDirectory: URL(fileURLWithPath: "/nonexistent")) else {
      _ = CNConfigurationLinter.lint(data: input)
      return
    }
    for format in CNPinningDocument.Format.allCases {
      let encoded = document.encoded(as: format)
      guard let again = try? CNPinningDocument(data: encoded), again.entries == document.entries,
        again.warnings.allSatisfy(document.warnings.contains)
      else {
        fatalError("a loaded configuration does not round-trip through \(format):\n\(String(decoding: encoded, as: UTF8.self))")
      }
    }
    _ = CNPinningManager(document: document)
    _ = CNConfigurationLinter.lint(document)
  }

  static let moment = Date(timeIntervalSince1970: 1_800_000_000)

  /// A token verifies only if the verification key's own private key signed it; verifying it
  /// never crashes.
  public static func policy(_ token: PolicyGenerator.Token, keys: PolicyGenerator.Keys, verificationKeys: [CNPolicySigningKey]) {
    let result = Result { () throws(CNPolicyError) in
      try CNEnterprisePolicy(token: Data(token.text), key: verificationKeys[token.verifier], at: moment)
    }
    if case .success = result, token.signer != token.verifier {
      fatalError("a token verified without a signature by the verification key: \(String(decoding: token.text, as: UTF8.self))")
    }
    if case .failure(let error) = result { _ = error.description }
  }
}
