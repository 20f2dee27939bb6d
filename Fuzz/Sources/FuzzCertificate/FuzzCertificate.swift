import CNPinning
import CNPinningTestKit
import Foundation

/// The DER certificate reader: never crashes, and a certificate it accepts is read as OpenSSL
/// reads it (or OpenSSL refuses it too): the same number of CNs, every CN our reader decodes
/// equal to OpenSSL's reading (refusing to decode one is allowed: the reader is stricter), and
/// the same SPKI hash.

func fuzzCertificate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let certificate = try? CNCertificate(derEncoded: bytes) else { return 0 }
  guard let reference = try? OpenSSLReference.read(bytes) else { return 0 }
  func agree(_ ours: [String?], _ theirs: [String?]) -> Bool {
    ours.count == theirs.count && zip(ours, theirs).allSatisfy { mine, openSSL in mine == nil || mine == openSSL }
  }
  guard agree(certificate.subjectCommonNameValues, reference.subjectCommonNames),
    agree(certificate.issuerCommonNameValues, reference.issuerCommonNames),
    certificate.spkiSHA256Base64 == reference.spkiSHA256Base64
  else {
    fatalError(
      "the reader and OpenSSL disagree: \(certificate.subjectCommonNameValues) / \(certificate.issuerCommonNameValues) vs \(reference.subjectCommonNames) / \(reference.issuerCommonNames)")
  }
  _ = certificate.publicKeyKind
  _ = certificate.signatureHash
  return 0
}
