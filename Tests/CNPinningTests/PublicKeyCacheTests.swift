// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
@testable import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The parsed-key cache behind OpenSSL signature checks: correct past its capacity, strict about
/// what it parses, and safe when keys are evicted while other threads verify with them.
@Suite struct PublicKeyCacheTests {
  static let keys = try! (0..<10).map { try TestPrivateKey.shared(.p256, slot: 60 + $0) }
  static let message = Array("header.payload".utf8)

  @Test func keysBeyondTheCapacityAreParsedAgainAndStillWork() {
    let cache = PublicKeyCache(capacity: 2)
    for _ in 0..<3 {
      for key in Self.keys { #expect(cache.withKey(key.subjectPublicKeyInfo) { _ in true } == true) }
    }
  }

  @Test func onlyAWholeSubjectPublicKeyInfoIsAccepted() {
    let cache = PublicKeyCache(capacity: 2)
    let der = Self.keys[0].subjectPublicKeyInfo
    #expect(cache.withKey(der + [0]) { _ in true } == nil)
    #expect(cache.withKey(Array(der.dropLast())) { _ in true } == nil)
    #expect(cache.withKey([]) { _ in true } == nil)
  }

  /// Eight tasks verify with ten keys through the shared cache (capacity eight), so keys are
  /// evicted while others still hold them; every signature must verify and every forgery fail.
  @Test(.tags(.concurrency)) func concurrentVerificationsWithEvictionsAgree() async throws {
    let signed = try Self.keys.map { key in
      (der: key.subjectPublicKeyInfo, signature: try key.signature(of: Self.message, digest: .sha256))
    }
    let failures = await withTaskGroup(of: Int.self) { group in
      for task in 0..<8 {
        group.addTask {
          var failures = 0
          for round in 0..<200 {
            let (der, signature) = signed[(task + round) % signed.count]
            let (otherDer, _) = signed[(task + round + 1) % signed.count]
            if !OpenSSLSignatures.verify(.es256, key: der, message: Self.message, signature: signature) { failures += 1 }
            if OpenSSLSignatures.verify(.es256, key: otherDer, message: Self.message, signature: signature) { failures += 1 }
          }
          return failures
        }
      }
      return await group.reduce(0, +)
    }
    #expect(failures == 0)
  }
}
#endif
