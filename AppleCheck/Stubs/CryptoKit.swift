// The slice of Apple's CryptoKit that CNPinning uses, for a type-check on Linux. Source: CryptoKit's
// documentation (developer.apple.com/documentation/cryptokit/sha256, .../digest), whose API
// swift-crypto mirrors declaration for declaration (Sources/Crypto/Digests/Digests.swift there).
@_exported import Foundation

public protocol Digest: Hashable, Sequence, Sendable where Element == UInt8 {}

public struct SHA256Digest: Digest {
  public func makeIterator() -> Array<UInt8>.Iterator { fatalError() }
}

public struct SHA256: Sendable {
  public typealias Digest = SHA256Digest
  public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { fatalError() }
}
